import type { PrismaClient, Prisma } from '../../generated/prisma/client.ts';
import { applyBookingAction } from './booking-transitions.ts';

const HOLD_STATES = ['pending_payment', 'checkout_started'] as const;

/** Whether a booking still in its payment hold is past `holdExpiresAt` (unknown fields: no). */
export function holdLapsed(booking: { state?: string; holdExpiresAt?: Date | null }, now: Date): boolean {
  return (HOLD_STATES as readonly (string | undefined)[]).includes(booking.state) && booking.holdExpiresAt != null && booking.holdExpiresAt <= now;
}

/**
 * Cancel bookings whose payment hold ran out (CONTRACT.md: a pending_payment booking holds
 * its vehicle for a while, then expires to canceled). Called by the periodic sweeper and,
 * for the rows at hand, before creating or reading a booking. Returns how many expired.
 */
export async function expireHolds(prisma: PrismaClient, now: Date, where: Prisma.BookingWhereInput = {}, batch = 100): Promise<number> {
  const due = await prisma.booking.findMany({
    where: { ...where, state: { in: [...HOLD_STATES] }, holdExpiresAt: { lte: now } },
    orderBy: { holdExpiresAt: 'asc' },
    take: batch,
  });
  let expired = 0;
  for (const booking of due) {
    try {
      await prisma.$transaction(async (tx) => {
        const origin = { businessId: booking.businessId, livemode: booking.livemode, requestId: null, idempotencyKey: null };
        await applyBookingAction(tx, origin, booking, 'expire_hold', { canceledAt: now, cancellationReason: 'hold_expired' });
        await tx.payment.updateMany({ where: { bookingId: booking.id, state: { in: ['requires_payment', 'checkout_started'] } }, data: { state: 'canceled' } });
      });
      expired++;
    } catch {
      // Another request or process moved it first (paid, canceled or expired it): nothing to do.
    }
  }
  return expired;
}
