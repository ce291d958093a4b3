import { authorize } from '../access/permissions.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { assertBookingVisible } from './booking.service.ts';

export type TimelineEntry =
  | { kind: 'api_call'; at: Date; id: string; method: string; path: string; status: number; requestId: string }
  | { kind: 'event'; at: Date; id: string; eventType: string; requestId: string | null }
  | { kind: 'webhook_delivery'; at: Date; id: string; eventId: string; eventType: string; url: string; responseStatus: number | null; attempt: number; durationMs: number };

/**
 * GET /v1/bookings/{id}/timeline: the booking's API calls, emitted events and webhook
 * delivery attempts, in the order they happened, with their counts (SPEC.md "Events").
 */
export async function getBookingTimeline(ctx: DomainContext, bookingId: string) {
  authorize(ctx.principal, 'bookings:read');
  await assertBookingVisible(ctx, bookingId);
  const [calls, events] = await Promise.all([
    ctx.prisma.auditLog.findMany({ where: { bookingId, ...scope(ctx) }, orderBy: { id: 'asc' } }),
    ctx.prisma.event.findMany({ where: { bookingId, ...scope(ctx) }, orderBy: { id: 'asc' } }),
  ]);
  const deliveries = await ctx.prisma.webhookDelivery.findMany({ where: { eventId: { in: events.map((e) => e.id) }, ...scope(ctx) }, orderBy: { id: 'asc' } });
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
}
