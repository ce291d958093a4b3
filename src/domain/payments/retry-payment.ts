import { z } from 'zod';
import { bookingMachine } from '../bookings/booking-state.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf, type EventOrigin } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { DomainError } from '../shared/errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation, type PrismaQuery } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import type { Booking } from '../../generated/prisma/client.ts';
import type { Db } from '../shared/context.ts';
import { recordPaymentFailure, recordPaymentSuccess, type PaymentFailure } from './payment-outcomes.ts';
import { recordProcessorCall, settledHere, takeProcessorCall, type CallRecovery, type MoneyContext } from './processor-calls.ts';
import { PaymentErrors, ProcessorErrors } from './payment.errors.ts';
import { paymentLifecycle } from './payment-state.ts';

export const retryBookingPayment = defineOperation({
  name: 'retryBookingPayment',
  summary: 'Retry an eligible failed payment',
  description:
    "Charges the customer's saved payment method again, without them present, for a booking whose payment failed and that still awaits payment (pending_payment). Collected: payment.succeeded and the booking is booked (confirmed when nothing else is required). Declined again: 402 card_declined, payment.failed, and the booking keeps holding its vehicle until hold_expires_at. If the processor cannot be reached the payment is failed again and a later retry of the same amount reaches the processor under the same idempotency key, so the customer is never charged twice; once the booking's price changed (a new period while pending), the retry charges the new amount under a key of its own. Any other payment: 409.",
  access: { permission: 'payments:write' },
  args: z.object({ bookingId: id('The booking (bk_...).') }),
  errors: [CommonErrors.invalidStateTransition, PaymentErrors.cardDeclined, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    const payment = await found(ctx.db.payment.findUnique({ where: { bookingId: booking.id } }), 'booking', booking.id);
    if (payment.state !== 'failed') {
      throw CommonErrors.invalidStateTransition('payment', payment.state, `Only a failed payment can be retried; this one is '${payment.state}'.`);
    }
    bookingMachine.check(booking, 'submit_payment');
    const origin = originOf(ctx);
    // Both compare-and-sets make this the one attempt under way; the call is on record for the money sweep.
    const callKey = await ctx.db.$transaction(async (tx) => {
      await applyBookingAction(tx, origin, booking, 'submit_payment');
      await runAction(tx, origin, paymentLifecycle, payment, 'submit');
      // One key per attempt the processor answered (a declined attempt is final, an unanswered
      // one is repeated as it was) and per amount: a key is never reused for another amount (a
      // pending booking's new period re-prices its payment), so a processor never sees one key
      // with two amounts. The call's row records the amount with its key.
      const declined = await tx.transaction.count({ where: { bookingId: booking.id, type: 'payment', status: 'failed' } });
      const key = paymentRetryKey(payment.id, payment.amountCents, declined);
      await recordProcessorCall(tx, origin, { kind: 'payment_retry', bookingId: booking.id, subjectId: payment.id, idempotencyKey: key, reference: payment.processorPaymentId, amountCents: payment.amountCents, currency: payment.currency });
      return key;
    });
    let paid: { id: string } | null = null;
    try {
      paid = await ctx.processor.chargeOffSession({
        bookingId: booking.id,
        customerId: booking.customerId,
        paymentReference: payment.processorPaymentId,
        amountCents: payment.amountCents,
        currency: payment.currency,
        idempotencyKey: callKey,
      });
    } catch (err) {
      const refusal = err instanceof DomainError && err.type === 'payment_error';
      const settlement = refusal ? retryDeclined(ctx, origin, booking.id, callKey, { code: err.code, message: err.message }) : retryUnanswered(ctx, origin, booking.id, callKey);
      // Settled meanwhile by the money sweep: what it settled is the answer.
      if (await settledHere(settlement)) throw err;
    }
    if (paid) await settledHere(retrySucceeded(ctx, origin, booking.id, callKey, paid.id));
    return ctx.db.payment.findUniqueOrThrow({ ...(query as PrismaQuery), where: { id: payment.id } });
  },
});

/** A retry's idempotency key at the processor: the payment, the amount charged, and how many attempts were declined before it. */
const paymentRetryKey = (paymentId: string, amountCents: number, declined: number) => `payment:${paymentId}:${amountCents}:${declined}`;

/** Within one transaction: the call taken off the record, then `settle` on the booking as it is now. */
function onRetry(m: MoneyContext, bookingId: string, callKey: string, settle: (tx: Db, booking: Booking) => Promise<unknown>) {
  return m.db.$transaction(async (tx) => {
    await takeProcessorCall(tx, callKey);
    await settle(tx, await tx.booking.findUniqueOrThrow({ where: { id: bookingId } }));
  });
}

/** Collected: payment.succeeded, and the booking is booked (confirmed when nothing else is required). */
const retrySucceeded = (m: MoneyContext, origin: EventOrigin, bookingId: string, callKey: string, processorPaymentId: string) =>
  onRetry(m, bookingId, callKey, (tx, booking) => recordPaymentSuccess(tx, origin, booking, processorPaymentId));

/** Declined: payment.failed, and the booking awaits payment again. */
const retryDeclined = (m: MoneyContext, origin: EventOrigin, bookingId: string, callKey: string, failure: PaymentFailure) =>
  onRetry(m, bookingId, callKey, (tx, booking) => recordPaymentFailure(tx, origin, booking, failure));

/** Unanswered: failed again, with no failed attempt recorded, so the next retry repeats this one. */
const retryUnanswered = (m: MoneyContext, origin: EventOrigin, bookingId: string, callKey: string) =>
  onRetry(m, bookingId, callKey, async (tx, booking) => {
    const current = await tx.payment.findUniqueOrThrow({ where: { bookingId } });
    await applyBookingAction(tx, origin, booking, 'payment_failed');
    await runAction(tx, origin, paymentLifecycle, current, 'fail', { failureCode: 'processor_unavailable', failureMessage: 'The payment processor could not be reached.' });
  });

/** A retry whose request died before settling it: settled as the processor says; one it never received is failed as unanswered. */
export const paymentRetryRecovery: CallRecovery = {
  lostCall: (call) => ({ kind: 'charge', idempotencyKey: call.id, paymentReference: call.reference, amountCents: call.amountCents, currency: call.currency, since: call.createdAt }),
  succeeded: (m, origin, call, processorId) => retrySucceeded(m, origin, call.bookingId, call.id, processorId),
  refused: (m, origin, call, failure) => retryDeclined(m, origin, call.bookingId, call.id, failure),
  whenAbsent: { unanswered: (m, origin, call) => retryUnanswered(m, origin, call.bookingId, call.id) },
};
