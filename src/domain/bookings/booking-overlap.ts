import type { Prisma } from '../../generated/prisma/client.ts';
import { RELEASED_STATES } from './booking-state.ts';

/**
 * Bookings that keep a vehicle busy during `period`: the same predicate as the database's
 * exclusion constraint, minus holds that have expired but were not swept yet.
 */
export function blockingBookingsOverlapping(period: { startAt: Date; endAt: Date }, now: Date): Prisma.BookingWhereInput {
  return {
    state: { notIn: [...RELEASED_STATES] },
    startAt: { lt: period.endAt },
    endAt: { gt: period.startAt },
    NOT: { state: { in: ['pending_payment', 'checkout_started'] }, holdExpiresAt: { lte: now } },
  };
}
