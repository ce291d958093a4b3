import { tenantOutbox } from '../../db/tenant-db.ts';
import { appReadScopes, eventAppId } from '../apps/app-events.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';

/** NOTIFY channel that wakes the event relay and the webhook workers: a trigger on "Event" notifies it when an insert commits. */
export const OUTBOX_CHANNEL = 'rental_outbox';

/** Who caused an event: a request of a business in one environment, or the system (null ids). */
export interface EventOrigin {
  businessId: string;
  livemode: boolean;
  requestId: string | null;
  idempotencyKey: string | null;
}

export function originOf(ctx: DomainContext): EventOrigin {
  return { businessId: ctx.principal.businessId, livemode: ctx.principal.livemode, requestId: ctx.requestId, idempotencyKey: ctx.idempotencyKey };
}

export interface EventInput {
  type: string;
  bookingId?: string | null;
  /** The object the event is about, in its API representation (src/domain/shared/presenter.ts). */
  object: Record<string, unknown>;
  /** Deliver only to this endpoint (a test webhook), not to every subscribed one. */
  onlyEndpointId?: string;
}

/**
 * Record an event in the caller's transaction (the outbox): it commits with the change that
 * causes it or not at all. In the same transaction and one statement, one webhook message per
 * endpoint that receives it is queued: the business's own subscribed endpoints, and those of
 * the apps connected to it that may read the event's object (src/domain/apps/app-events.ts).
 * A NOTIFY wakes the relay and the delivery workers at commit.
 */
export async function recordEvent(tx: Db, origin: EventOrigin, input: EventInput) {
  const event = await tx.event.create({
    data: {
      id: newId('event'),
      businessId: origin.businessId,
      livemode: origin.livemode,
      type: input.type,
      bookingId: input.bookingId ?? null,
      data: { object: input.object } as object,
      requestId: origin.requestId,
      idempotencyKey: origin.idempotencyKey,
    },
  });
  await tenantOutbox(tx).$queueEventMessages({
    eventId: event.id,
    onlyEndpointId: input.onlyEndpointId ?? null,
    appScopes: input.onlyEndpointId ? [] : appReadScopes(input.type),
    appId: input.onlyEndpointId ? null : eventAppId(input.type, input.object),
    idPrefix: newId('webhookMessage'),
  });
  return event;
}

export type EventRow = Awaited<ReturnType<typeof recordEvent>>;

/** The one event shape (the contract, "Events and webhooks"), for webhooks, subscriptions and lists. */
export function presentEvent(row: { id: string; businessId: string; type: string; livemode: boolean; createdAt: Date; data: unknown; requestId: string | null; idempotencyKey: string | null }) {
  return {
    id: row.id,
    object: 'event',
    type: row.type,
    api_version: 'v1',
    created_at: row.createdAt.toISOString(),
    // The business the event is about: an app's endpoints receive the events of many.
    business_id: row.businessId,
    livemode: row.livemode,
    data: row.data,
    request: { id: row.requestId, idempotency_key: row.idempotencyKey },
  };
}
