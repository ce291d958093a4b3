import { describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE, EVENT_TYPES } from '../events/event-types.ts';
import { APP_EVENT_OBJECTS, appReadScopes, eventAppId } from './app-events.ts';

describe('which events an app receives', () => {
  it('has a rule for the object of every event type', () => {
    for (const type of EVENT_TYPES) expect(APP_EVENT_OBJECTS, type).toContain(EVENT_CATALOGUE[type].object);
  });

  it('an event about an object needs its read permission, or events:read', () => {
    expect(appReadScopes('booking.created')).toEqual(['bookings:read', 'events:read']);
    expect(appReadScopes('payment.refunded')).toEqual(['payments:read', 'events:read']);
    expect(appReadScopes('charge.failed')).toEqual(['charges:read', 'events:read']);
    expect(appReadScopes('invitation.created')).toEqual(['team:read', 'events:read']);
  });

  it('no app receives delivery.retrying, app events or an unknown type by scope', () => {
    expect(appReadScopes('delivery.retrying')).toEqual([]);
    expect(appReadScopes('app.authorized')).toEqual([]);
    expect(appReadScopes('no.such_event')).toEqual([]);
  });

  it('app.authorized and app.deauthorized go to the app of the connection they are about', () => {
    expect(eventAppId('app.authorized', { object: 'connected_app', app_id: 'app_1' })).toBe('app_1');
    expect(eventAppId('app.deauthorized', { object: 'connected_app', app_id: 'app_2' })).toBe('app_2');
    expect(eventAppId('booking.created', { object: 'booking', app_id: 'app_1' })).toBeNull();
    expect(eventAppId('app.authorized', { object: 'test_webhook' })).toBeNull();
  });
});
