import { z } from 'zod';
import { assertBookingVisible } from '../bookings/get-booking.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { EVENT_TYPES } from './event-types.ts';

/** What a live stream sees of each event: enough to decide whether it passes. */
export interface StreamedEvent {
  type: string;
  booking_id: string | null;
}

type EventFilter = (event: StreamedEvent) => boolean;

/**
 * Open a live stream of the caller's events (GraphQL subscriptions): the same `events:read`
 * as the events API, known types only, and a named booking must be the caller's, in the
 * caller's environment (else `resource_missing`: existence never leaks). The tenant and
 * environment are the stream's topic; this returns the rest of the filter.
 */
function streamOperation(name: string, summary: string, args: z.ZodObject<{ bookingId?: z.ZodType<string | null | undefined>; types?: z.ZodType<readonly string[] | null | undefined> }>) {
  return defineOperation({
    name,
    summary,
    description: `${summary}, over graphql-ws or SSE; the key decides business and environment.`,
    access: { permission: 'events:read' },
    args,
    errors: [],
    async run(ctx, input): Promise<EventFilter> {
      const bookingId = (input.bookingId as string | null | undefined) ?? null;
      if (bookingId !== null) await assertBookingVisible(ctx, bookingId, 'booking_id');
      const types = input.types ? new Set<string>(input.types as readonly string[]) : null;
      return (event) => (bookingId === null || event.booking_id === bookingId) && (types === null || types.has(event.type));
    },
  });
}

export const streamBookingEvents = streamOperation('bookingEvents', 'Events of one booking as they happen', z.object({ bookingId: id('The booking (bk_...).') }));

export const streamEvents = streamOperation(
  'events',
  "Every event of the business in the key's environment as it happens",
  z.object({ types: z.array(z.enum(EVENT_TYPES)).min(1).max(100).nullish().meta({ description: 'Only events of these types.' }) }),
);
