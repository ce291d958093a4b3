import { filter, pipe } from 'graphql-yoga';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../builder.ts';
import type { Event as EventRow } from '../generated/prisma/client.ts';
import { openEventStream } from '../domain/events/event-subscription.service.ts';
import { eventTopic, type PresentedEvent } from '../events/event-relay.ts';
import { Event } from './event.ts';

builder.subscriptionType({
  description: 'Live events of committed changes, over graphql-ws (WebSocket) or SSE; the key decides business and environment.',
});

/**
 * The relay's payload (the presented event, as webhooks send it) back as the row `Event`
 * resolves from, so a subscriber sees exactly what `Query.event` shows. It may have crossed
 * Redis as JSON, hence the date parsed again.
 */
function eventRow(event: PresentedEvent, businessId: string): EventRow {
  return {
    id: event.id,
    businessId,
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

/** The caller's events as they commit: one topic per business and environment, then the filter. */
async function subscribeToEvents(ctx: GraphQLContext, input: { bookingId?: string | null; types?: readonly string[] | null }) {
  const passes = await openEventStream(ctx.domain, input);
  const { businessId, livemode } = ctx.domain.principal;
  return pipe(ctx.pubsub.subscribe(eventTopic(businessId, livemode)), filter((event: PresentedEvent) => passes(event)));
}

builder.subscriptionFields((t) => ({
  bookingEvents: t.field({
    type: Event,
    description: 'Events of one booking as they happen. An unknown booking, or one of another business or environment, is `resource_missing`.',
    args: { bookingId: t.arg.id({ required: true }) },
    subscribe: (_root, args, ctx) => subscribeToEvents(ctx, { bookingId: String(args.bookingId) }),
    resolve: (event, _args, ctx) => eventRow(event, ctx.domain.principal.businessId),
  }),
  events: t.field({
    type: Event,
    description: 'Every event of the business in the key\'s environment as it happens, optionally only these types.',
    args: { types: t.arg.stringList({ required: false }) },
    subscribe: (_root, args, ctx) => subscribeToEvents(ctx, { types: args.types }),
    resolve: (event, _args, ctx) => eventRow(event, ctx.domain.principal.businessId),
  }),
}));
