import type { Booking } from '../../generated/prisma/client.ts';
import { advanceBooking, type BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import type { EventOrigin } from '../events/event.service.ts';
import { recordTransaction } from '../payments/transactions.ts';
import type { Db } from '../shared/context.ts';
import { runAction } from '../shared/lifecycle.ts';
import { depositLifecycle } from './deposit-state.ts';

/**
 * The security deposit is held on the customer's card: the deposit is secured
 * (`deposit.secured`), a `deposit_hold` transaction is written, the booking's deposit gate is
 * satisfied (the spec's gating rule 1) and the booking advances if it now can.
 */
export async function secureDeposit(tx: Db, origin: EventOrigin, booking: Booking, now: Date, processorHoldId: string | null = null): Promise<BookingOutcome> {
  const gated = await applyBookingAction(tx, origin, booking, 'secure_deposit');
  const deposit = await tx.deposit.findUniqueOrThrow({ where: { bookingId: booking.id } });
  await runAction(tx, origin, depositLifecycle, { ...deposit, bookingState: booking.state }, 'secure', { securedAt: now, processorHoldId });
  await recordTransaction(tx, origin, { bookingId: booking.id, type: 'deposit_hold', status: 'succeeded', amountCents: deposit.amountCents, currency: deposit.currency });
  const advanced = await advanceBooking(tx, origin, gated);
  return { booking: advanced.booking, events: ['deposit.secured', ...advanced.events] };
}
