import type { Prisma } from '../../generated/prisma/client.ts';
import { tenantLocks } from '../../db/tenant-db.ts';
import type { Db } from '../shared/context.ts';
import { RELEASED_STATES } from './booking-state.ts';
import { BookingErrors } from './booking.errors.ts';

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

/**
 * Inside a transaction about to give `vehicleId` a new blocking period (a booking inserted,
 * an extension reserved): wait for any other such transaction of the vehicle to end, then
 * answer whether a committed booking, other than `except`, already blocks part of `period`
 * (the caller refuses the period then, without writing it).
 *
 * The exclusion constraint checks a period after writing it, and waits on any overlapping
 * period another transaction has written but not committed. Two writers of overlapping
 * periods can so wait on each other, as can a writer and a transaction that updates the
 * booking it overlaps (every state change writes the row's period again): PostgreSQL finds
 * such a cycle only after deadlock_timeout (1 s) and aborts one, which the service runs again.
 * Queued here, with a committed overlap refused before anything is written, a writer never
 * waits on another, and the constraint stays the guarantee.
 */
export async function vehiclePeriodTaken(tx: Db, vehicleId: string, period: { startAt: Date; endAt: Date }, now: Date, except?: string): Promise<boolean> {
  await tenantLocks(tx).$lockKey(`vehicle-calendar:${vehicleId}`);
  const clash = await tx.booking.findFirst({
    where: { vehicleId, ...blockingBookingsOverlapping(period, now), ...(except ? { id: { not: except } } : {}) },
    select: { id: true },
  });
  return clash !== null;
}

/** 409 vehicle_unavailable for a new booking or a new period of one. */
export const periodUnavailable = (vehicleId: string, period: { startAt: Date; endAt: Date }) =>
  BookingErrors.vehicleUnavailable(`Vehicle ${vehicleId} is already booked for part of ${period.startAt.toISOString()} – ${period.endAt.toISOString()}.`);
