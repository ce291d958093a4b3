import type { Booking } from '../../generated/prisma/client.ts';
import { advanceBooking, updateGates, type BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { BOOKING_ACTIONS, transition } from '../bookings/booking-state.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { presentBooking } from '../bookings/booking.fields.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';

/**
 * The processor's answer about a booking's rental payment, applied in the caller's
 * transaction: the payment, its transaction row, the payment gate and the booking's state
 * change together, each with its event.
 */
export async function recordPaymentSuccess(tx: Db, origin: EventOrigin, booking: Booking): Promise<BookingOutcome> {
  const booked = await applyBookingAction(tx, origin, booking, 'payment_succeeded', { paymentGate: 'satisfied', holdExpiresAt: null });
  const payment = await tx.payment.update({ where: { bookingId: booking.id }, data: { state: 'succeeded', failureCode: null, failureMessage: null } });
  await tx.transaction.create({
    data: { id: newId('transaction'), businessId: origin.businessId, livemode: origin.livemode, bookingId: booking.id, type: 'payment', status: 'succeeded', amountCents: payment.amountCents, currency: payment.currency },
  });
  const advanced = await advanceBooking(tx, origin, booked);
  return { booking: advanced.booking, events: [BOOKING_ACTIONS.payment_succeeded.event, ...advanced.events] };
}

export interface PaymentFailure {
  code: string;
  message: string;
}

/**
 * A declined payment. Before the booking is booked it returns to pending_payment (the
 * customer may pay again); a booking already booked needs a human and goes to `problem`.
 * `payment.failed` is emitted either way (SPEC.md "Events").
 */
export async function recordPaymentFailure(tx: Db, origin: EventOrigin, booking: Booking, failure: PaymentFailure): Promise<BookingOutcome> {
  let outcome: BookingOutcome;
  if ((BOOKING_ACTIONS.payment_failed.from as readonly string[]).includes(booking.state)) {
    outcome = { booking: await applyBookingAction(tx, origin, booking, 'payment_failed', { paymentGate: 'failed' }), events: [BOOKING_ACTIONS.payment_failed.event] };
  } else {
    transition(booking, 'flag_problem'); // a canceled or refunded booking has nothing left to fail
    const failed = await updateGates(tx, booking, { paymentGate: 'failed' });
    await recordEvent(tx, origin, { type: BOOKING_ACTIONS.payment_failed.event, bookingId: booking.id, object: presentBooking(failed) });
    outcome = { booking: await applyBookingAction(tx, origin, failed, 'flag_problem'), events: [BOOKING_ACTIONS.payment_failed.event, BOOKING_ACTIONS.flag_problem.event] };
  }
  const payment = await tx.payment.update({ where: { bookingId: booking.id }, data: { state: 'failed', failureCode: failure.code, failureMessage: failure.message } });
  await tx.transaction.create({
    data: { id: newId('transaction'), businessId: origin.businessId, livemode: origin.livemode, bookingId: booking.id, type: 'payment', status: 'failed', amountCents: payment.amountCents, currency: payment.currency },
  });
  return outcome;
}
