import { builder } from '../builder.ts';
import { getEvent, listEvents } from '../domain/events/list-events.ts';
import { getBookingTimeline, type TimelineEntry } from '../domain/bookings/get-booking-timeline.ts';
import { operationField } from './operation-field.ts';

/** The one event shape (the contract): the same fields as a webhook body. */
export const Event = builder.prismaObject('Event', {
  description: 'Something that happened; the same object is delivered by webhooks and subscriptions.',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type'),
    apiVersion: t.string({ resolve: () => 'v1' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    businessId: t.exposeID('businessId', { description: 'The business the event is about (biz_...): an app\'s webhook endpoints receive the events of every business connected to it.' }),
    livemode: t.exposeBoolean('livemode'),
    data: t.expose('data', { type: 'JSON', description: '`{ object }`: the object the event is about, in its REST representation.' }),
    request: t.field({
      type: 'JSON',
      description: '`{ id, idempotency_key }` of the request that caused it; nulls for system events.',
      resolve: (e) => ({ id: e.requestId, idempotency_key: e.idempotencyKey }),
    }),
  }),
});

const TimelineEntryRef = builder.objectRef<TimelineEntry>('TimelineEntry').implement({
  description: 'One API call, event or webhook delivery attempt of a booking.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'api_call, event or webhook_delivery' }),
    at: t.expose('at', { type: 'DateTime' }),
    ref: t.string({ description: 'Id of the audit record, event or delivery attempt.', resolve: (e) => e.id }),
    method: t.string({ nullable: true, resolve: (e) => (e.kind === 'api_call' ? e.method : null) }),
    path: t.string({ nullable: true, resolve: (e) => (e.kind === 'api_call' ? e.path : null) }),
    status: t.int({ nullable: true, resolve: (e) => (e.kind === 'api_call' ? e.status : null) }),
    requestId: t.string({ nullable: true, resolve: (e) => (e.kind === 'webhook_delivery' ? null : e.requestId) }),
    eventId: t.string({ nullable: true, resolve: (e) => (e.kind === 'event' ? e.id : e.kind === 'webhook_delivery' ? e.eventId : null) }),
    eventType: t.string({ nullable: true, resolve: (e) => (e.kind === 'api_call' ? null : e.eventType) }),
    url: t.string({ nullable: true, resolve: (e) => (e.kind === 'webhook_delivery' ? e.url : null) }),
    responseStatus: t.int({ nullable: true, resolve: (e) => (e.kind === 'webhook_delivery' ? e.responseStatus : null) }),
    attempt: t.int({ nullable: true, resolve: (e) => (e.kind === 'webhook_delivery' ? e.attempt : null) }),
    durationMs: t.int({ nullable: true, resolve: (e) => (e.kind === 'webhook_delivery' ? e.durationMs : null) }),
  }),
});

const TimelineCounts = builder.objectRef<{ actions: number; events: number; deliveries: number }>('TimelineCounts').implement({
  fields: (t) => ({ actions: t.exposeInt('actions'), events: t.exposeInt('events'), deliveries: t.exposeInt('deliveries') }),
});

const BookingTimeline = builder.objectRef<Awaited<ReturnType<typeof getBookingTimeline.run>>>('BookingTimeline').implement({
  description: "A booking's API calls, events and webhook deliveries, in order, with their counts.",
  fields: (t) => ({
    bookingId: t.exposeID('bookingId'),
    entries: t.field({ type: [TimelineEntryRef], resolve: (tl) => tl.entries }),
    counts: t.field({ type: TimelineCounts, resolve: (tl) => tl.counts }),
  }),
});

const events = operationField(listEvents);
const event = operationField(getEvent);
const timeline = operationField(getBookingTimeline);

builder.queryFields((t) => ({
  events: events.connection(t, Event),
  event: event.prisma(t, 'Event'),
  bookingTimeline: timeline.plain(t, BookingTimeline),
}));
