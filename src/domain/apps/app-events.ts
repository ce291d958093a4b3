import type { Permission } from '../access/permissions.ts';
import { EVENT_CATALOGUE, isEventType } from '../events/event-types.ts';

/*
 * Which events of a connected business an app's webhook endpoints receive (the contract, "OAuth
 * apps": an app's endpoints receive the events of every business connected to it). An app
 * receives what its grant could read through the API, nothing more:
 * - an event about an object (a booking, a charge ...) when the grant holds that object's read
 *   permission (bookings:read ...), or events:read, with which it could list every event;
 * - app.authorized and app.deauthorized of its own connection only (never those of another app
 *   connected to the same business), whatever its scopes: news of the grant itself, as a
 *   platform hears of its own connections;
 * - never delivery.retrying: news of the business's own endpoints.
 */

/** The read permission of each kind of object events carry; null: no app receives it by scope. */
const OBJECT_READ: Record<string, Permission | null> = {
  booking: 'bookings:read',
  payment: 'payments:read',
  identity_verification: 'identity:read',
  agreement: 'agreements:read',
  insurance: 'insurance:read',
  deposit: 'deposits:read',
  charge: 'charges:read',
  dispute: 'disputes:read',
  domain: 'domains:read',
  message: 'messages:read',
  team_member: 'team:read',
  invitation: 'team:read',
  vehicle: 'vehicles:read',
  customer: 'customers:read',
  business: 'business:read',
  business_settings: 'business:read',
  website: 'website:read',
  branding: 'website:read',
  webhook_delivery: null,
  connected_app: null,
};

/** What a connected app's grant must hold (one of) to receive an event of `type`: none when no app receives it by scope. */
export function appReadScopes(type: string): Permission[] {
  if (!isEventType(type)) return [];
  const read = OBJECT_READ[EVENT_CATALOGUE[type].object];
  return read ? [read, 'events:read'] : [];
}

/** The app an event is about, whose endpoints receive it whatever its scopes (its own app.authorized, app.deauthorized). */
export function eventAppId(type: string, object: Record<string, unknown>): string | null {
  return (type === 'app.authorized' || type === 'app.deauthorized') && object.object === 'connected_app' && typeof object.app_id === 'string' ? object.app_id : null;
}

/** Every object kind events carry has its rule here (checked by the unit test beside this file). */
export const APP_EVENT_OBJECTS: readonly string[] = Object.keys(OBJECT_READ);
