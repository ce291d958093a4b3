import { builder } from '../builder.ts';
import type { GraphQLContext } from '../builder.ts';
import type { Event as EventRow } from '../generated/prisma/client.ts';
import { streamBookingEvents, streamEvents } from '../domain/events/open-event-stream.ts';
import { eventTopic, type PresentedEvent } from '../events/event-relay.ts';
import { Event } from './event.ts';
import { operationField } from './operation-field.ts';

builder.subscriptionType({
  description: 'Live events of committed changes, over graphql-ws (WebSocket) or SSE; the key decides business and environment.',
});

/**
 * The relay's payload (the presented event, as webhooks send it) back as the row `Event`
 * resolves from, so a subscriber sees exactly what `Query.event` shows. It may have crossed
 * Redis as JSON, hence the date parsed again.
 */
function eventRow(event: PresentedEvent, ctx: GraphQLContext): EventRow {
  return {
    id: event.id,
    businessId: ctx.domain.tenant.businessId,
    livemode: event.livemode,
    type: event.type,
    bookingId: event.booking_id,
    data: event.data as EventRow['data'],
    requestId: event.request.id,
    idempotencyKey: event.request.idempotency_key,
    publishedAt: null,
    createdAt: new Date(event.created_at),
  };
}

/** The caller's events as they commit: one topic per business and environment. */
const topic = (ctx: GraphQLContext) => ctx.pubsub.subscribe(eventTopic(ctx.domain.tenant.businessId, ctx.domain.tenant.livemode));

const bookingEvents = operationField(streamBookingEvents);
const events = operationField(streamEvents);

builder.subscriptionFields((t) => ({
  bookingEvents: bookingEvents.subscription(t, Event, topic, eventRow),
  events: events.subscription(t, Event, topic, eventRow),
}));
