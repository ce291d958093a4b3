import { z } from 'zod';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { assertBookingVisible } from './get-booking.ts';

export type TimelineEntry =
  | { kind: 'api_call'; at: Date; id: string; method: string; path: string; status: number; requestId: string }
  | { kind: 'event'; at: Date; id: string; eventType: string; requestId: string | null }
  | { kind: 'webhook_delivery'; at: Date; id: string; eventId: string; eventType: string; url: string; responseStatus: number | null; attempt: number; durationMs: number };

export const getBookingTimeline = defineOperation({
  name: 'bookingTimeline',
  summary: 'Retrieve lifecycle history',
  description: "The booking's API calls, emitted events and webhook delivery attempts, in the order they happened, with their counts.",
  access: { permission: 'bookings:read' },
  args: z.object({ bookingId: id('The booking (bk_...).') }),
  errors: [],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, { bookingId }) {
    await assertBookingVisible(ctx, bookingId);
    const [calls, events] = await Promise.all([
      ctx.db.auditLog.findMany({ where: { bookingId }, orderBy: { id: 'asc' } }),
      ctx.db.event.findMany({ where: { bookingId }, orderBy: { id: 'asc' } }),
    ]);
    const deliveries = await ctx.db.webhookDelivery.findMany({ where: { eventId: { in: events.map((e) => e.id) } }, orderBy: { id: 'asc' } });
    const entries: TimelineEntry[] = [
      ...calls.map((c) => ({ kind: 'api_call' as const, at: c.createdAt, id: c.id, method: c.method, path: c.path, status: c.status, requestId: c.requestId })),
      ...events.map((e) => ({ kind: 'event' as const, at: e.createdAt, id: e.id, eventType: e.type, requestId: e.requestId })),
      ...deliveries.map((d) => ({
        kind: 'webhook_delivery' as const, at: d.createdAt, id: d.id, eventId: d.eventId, eventType: d.eventType, url: d.url,
        responseStatus: d.responseStatus, attempt: d.attempt, durationMs: d.durationMs,
      })),
    ];
    // Time first; ids (time-ordered) break ties within one millisecond.
    entries.sort((a, b) => a.at.getTime() - b.at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { bookingId, entries, counts: { actions: calls.length, events: events.length, deliveries: deliveries.length } };
  },
});
