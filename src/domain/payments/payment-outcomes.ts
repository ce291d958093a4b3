import type { Booking } from '../../generated/prisma/client.ts';
import { advanceBooking, bookingStep, type BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { runAction } from '../shared/lifecycle.ts';
import { paymentLifecycle } from './payment-state.ts';
import { recordTransaction } from './transactions.ts';

/**
 * The processor's answer about a booking's rental payment, applied in the caller's
 * transaction: the booking, its payment and a transaction row change together, each through
 * its table, with their events.
 */
export async function recordPaymentSuccess(tx: Db, origin: EventOrigin, booking: Booking, processorPaymentId?: string): Promise<BookingOutcome> {
  const booked = await bookingStep(tx, origin, booking, 'payment_succeeded', { holdExpiresAt: null });
  const payment = await tx.payment.findUniqueOrThrow({ where: { bookingId: booking.id } });
  // A retry's payment is a new one at the processor: refunds go to it.
  await runAction(tx, origin, paymentLifecycle, payment, 'succeed', { failureCode: null, failureMessage: null, ...(processorPaymentId ? { processorPaymentId } : {}) });
  await recordTransaction(tx, origin, { bookingId: booking.id, type: 'payment', status: 'succeeded', amountCents: payment.amountCents, currency: payment.currency });
  const advanced = await advanceBooking(tx, origin, booked.booking);
  return { booking: advanced.booking, events: [...booked.events, ...advanced.events] };
}

export interface PaymentFailure {
  code: string;
  message: string;
}

/**
 * A declined payment. Before the booking is booked it returns to pending_payment (the
 * customer may pay again); a booking already booked needs a human and goes to `problem`.
 * `payment.failed` is emitted either way (the spec's "Events").
 */
export async function recordPaymentFailure(tx: Db, origin: EventOrigin, booking: Booking, failure: PaymentFailure): Promise<BookingOutcome> {
  let outcome: BookingOutcome;
  if (bookingMachine.can(booking, 'payment_failed')) {
    outcome = await bookingStep(tx, origin, booking, 'payment_failed');
  } else {
    const failed = await bookingStep(tx, origin, booking, 'payment_failed_after_booking');
    const flagged = await bookingStep(tx, origin, failed.booking, 'flag_problem');
    outcome = { booking: flagged.booking, events: [...failed.events, ...flagged.events] };
  }
  const payment = await tx.payment.findUniqueOrThrow({ where: { bookingId: booking.id } });
  await runAction(tx, origin, paymentLifecycle, payment, 'fail', { failureCode: failure.code, failureMessage: failure.message });
  await recordTransaction(tx, origin, { bookingId: booking.id, type: 'payment', status: 'failed', amountCents: payment.amountCents, currency: payment.currency });
  return outcome;
}
