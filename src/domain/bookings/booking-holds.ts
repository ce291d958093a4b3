import type { Prisma } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { runAction } from '../shared/lifecycle.ts';
import { paymentLifecycle, paymentMachine } from '../payments/payment-state.ts';
import { applyBookingAction } from './booking-transitions.ts';

export const HOLD_STATES = ['pending_payment', 'checkout_started'] as const;

/** Whether a booking still in its payment hold is past `holdExpiresAt` (unknown fields: no). */
export function holdLapsed(booking: { state?: string; holdExpiresAt?: Date | null }, now: Date): boolean {
  return (HOLD_STATES as readonly (string | undefined)[]).includes(booking.state) && booking.holdExpiresAt != null && booking.holdExpiresAt <= now;
}

/** Bookings whose payment hold ran out by `now`. */
export const lapsedHolds = (now: Date): Prisma.BookingWhereInput => ({ state: { in: [...HOLD_STATES] }, holdExpiresAt: { lte: now } });

/**
 * Cancel one tenant's bookings whose payment hold ran out (the contract: a pending_payment
 * booking holds its vehicle for a while, then expires to canceled); their unpaid payment is
 * canceled with them. Called by the sweeper for each tenant with lapsed holds and, for the
 * rows at hand, before creating or reading a booking. Returns how many expired.
 */
export async function expireHolds(db: TenantDb, now: Date, where: Prisma.BookingWhereInput = {}, batch = 100): Promise<number> {
  const due = await db.booking.findMany({ where: { ...where, ...lapsedHolds(now) }, orderBy: { holdExpiresAt: 'asc' }, take: batch });
  let expired = 0;
  for (const booking of due) {
    try {
      await db.$transaction(async (tx) => {
        // The platform's own step: no request caused it.
        const origin = { businessId: booking.businessId, livemode: booking.livemode, requestId: null, idempotencyKey: null };
        await applyBookingAction(tx, origin, booking, 'expire_hold', { canceledAt: now, cancellationReason: 'hold_expired' });
        const payment = await tx.payment.findUnique({ where: { bookingId: booking.id } });
        if (payment && paymentMachine.can(payment, 'cancel')) await runAction(tx, origin, paymentLifecycle, payment, 'cancel');
      });
      expired++;
    } catch {
      // Another request or process moved it first (paid, canceled or expired it): nothing to do.
    }
  }
  return expired;
}
