import { builder } from '../builder.ts';
import type { GraphQLContext } from '../builder.ts';
import type { Event as EventRow } from '../generated/prisma/client.ts';
import { streamBookingEvents, streamEvents } from '../domain/events/open-event-stream.ts';
import { eventTopic, type PresentedEvent } from '../events/event-relay.ts';
import { Event } from './event.ts';
import type { Operation } from '../domain/shared/operation.ts';
import type { DomainContext } from '../domain/shared/context.ts';
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

/**
 * A live event subscription as its operation set it up: the caller's topic and the filter the
 * operation returned after its checks (access, a visible booking). The WebSocket fans events
 * out from one listener per topic with these (src/http/websocket.ts), instead of running one
 * pipeline per subscriber; the stream built below serves SSE, and stays idle under graphql-ws.
 */
export interface LiveEventStream {
  topic: string;
  passes(event: PresentedEvent): boolean;
}

const filters = new WeakMap<DomainContext, (event: PresentedEvent) => boolean>();
const liveStreams = new WeakMap<object, LiveEventStream>();

/** The live event stream an operation with this GraphQL context subscribed to, if any. */
export const liveEventStreamOf = (contextValue: unknown): LiveEventStream | undefined =>
  contextValue && typeof contextValue === 'object' ? liveStreams.get(contextValue) : undefined;

/** The operation unchanged, its filter also remembered for the caller's context. */
function rememberingFilter(operation: Operation): Operation {
  return {
    ...operation,
    call: async (ctx, args, extras) => {
      const passes = (await operation.call(ctx, args, extras)) as (event: PresentedEvent) => boolean;
      filters.set(ctx, passes);
      return passes;
    },
  };
}

/**
 * The caller's events as they commit: one topic per business and environment. The pubsub's
 * stream only listens once iterated.
 */
const topic = (ctx: GraphQLContext) => {
  const name = eventTopic(ctx.domain.tenant.businessId, ctx.domain.tenant.livemode);
  const passes = filters.get(ctx.domain);
  if (passes) liveStreams.set(ctx, { topic: name, passes });
  return ctx.pubsub.subscribe(name);
};

const bookingEvents = operationField(rememberingFilter(streamBookingEvents));
const events = operationField(rememberingFilter(streamEvents));

builder.subscriptionFields((t) => ({
  bookingEvents: bookingEvents.subscription(t, Event, topic, eventRow),
  events: events.subscription(t, Event, topic, eventRow),
}));
