import { z } from 'zod';
import { authorize } from '../access/permissions.ts';
import { assertBookingVisible } from '../bookings/booking.service.ts';
import type { DomainContext } from '../shared/context.ts';
import { parseInput } from '../shared/validation.ts';
import { EVENT_TYPES, isEventType } from './event-types.ts';

/** What a live stream sees of each event: enough to decide whether it passes. */
export interface StreamedEvent {
  type: string;
  booking_id: string | null;
}

const streamInput = z.object({
  bookingId: z.string().max(100).nullish(),
  types: z
    .array(z.string())
    .min(1)
    .max(100)
    .refine((types) => types.every(isEventType), `each must be one of: ${EVENT_TYPES.join(', ')}`)
    .nullish(),
});

/**
 * Open a live stream of the caller's events (GraphQL subscriptions): the same `events:read`
 * as the events API, known types only, and a named booking must be the caller's, in the
 * caller's environment (else `resource_missing`, as for any read: existence never leaks).
 * The tenant and environment are the stream's topic; this returns the rest of the filter.
 */
export async function openEventStream(ctx: DomainContext, raw: { bookingId?: string | null; types?: readonly string[] | null }): Promise<(event: StreamedEvent) => boolean> {
  authorize(ctx.principal, 'events:read');
  const input = parseInput(streamInput, raw);
  const bookingId = input.bookingId ?? null;
  if (bookingId !== null) {
    await assertBookingVisible(ctx, bookingId, 'booking_id');
  }
  const types = input.types ? new Set<string>(input.types) : null;
  return (event) => (bookingId === null || event.booking_id === bookingId) && (types === null || types.has(event.type));
}
