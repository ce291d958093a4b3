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
 * causes it or not at all. In the same transaction, one webhook message per subscribed
 * endpoint is queued, and a NOTIFY wakes the relay and the delivery workers at commit.
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
  const endpoints = await tx.webhookEndpoint.findMany({
    where: {
      businessId: origin.businessId,
      livemode: origin.livemode,
      ...(input.onlyEndpointId ? { id: input.onlyEndpointId } : { enabled: true, OR: [{ enabledEvents: { has: '*' } }, { enabledEvents: { has: input.type } }] }),
    },
    select: { id: true },
  });
  if (endpoints.length) {
    await tx.webhookMessage.createMany({
      data: endpoints.map((e) => ({
        id: newId('webhookMessage'),
        businessId: origin.businessId,
        livemode: origin.livemode,
        endpointId: e.id,
        eventId: event.id,
        eventType: event.type,
        nextAttemptAt: event.createdAt,
      })),
    });
  }
  return event;
}

export type EventRow = Awaited<ReturnType<typeof recordEvent>>;

/** The one event shape (the contract, "Events and webhooks"), for webhooks, subscriptions and lists. */
export function presentEvent(row: { id: string; type: string; livemode: boolean; createdAt: Date; data: unknown; requestId: string | null; idempotencyKey: string | null }) {
  return {
    id: row.id,
    object: 'event',
    type: row.type,
    api_version: 'v1',
    created_at: row.createdAt.toISOString(),
    livemode: row.livemode,
    data: row.data,
    request: { id: row.requestId, idempotency_key: row.idempotencyKey },
  };
}
