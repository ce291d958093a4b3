import { z } from 'zod';
import { bookingMachine } from '../bookings/booking-state.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { DomainError } from '../shared/errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation, type PrismaQuery } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { recordPaymentFailure, recordPaymentSuccess } from './payment-outcomes.ts';
import { PaymentErrors, ProcessorErrors } from './payment.errors.ts';
import { paymentLifecycle } from './payment-state.ts';

export const retryBookingPayment = defineOperation({
  name: 'retryBookingPayment',
  summary: 'Retry an eligible failed payment',
  description:
    "Charges the customer's saved payment method again, without them present, for a booking whose payment failed and that still awaits payment (pending_payment). Collected: payment.succeeded and the booking is booked (confirmed when nothing else is required). Declined again: 402 card_declined, payment.failed, and the booking keeps holding its vehicle until hold_expires_at. If the processor cannot be reached the payment is failed again and a later retry reaches the processor under the same idempotency key, so the customer is never charged twice. Any other payment: 409.",
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
    // Both compare-and-sets make this the one attempt under way.
    const submitted = await ctx.db.$transaction(async (tx) => {
      const pending = await applyBookingAction(tx, origin, booking, 'submit_payment');
      await runAction(tx, origin, paymentLifecycle, payment, 'submit');
      return pending;
    });
    // One key per attempt the processor answered: a declined attempt is final, an unanswered one is repeated as it was.
    const declined = await ctx.db.transaction.count({ where: { bookingId: booking.id, type: 'payment', status: 'failed' } });
    let paid: { id: string };
    try {
      paid = await ctx.processor.chargeOffSession({
        bookingId: booking.id,
        customerId: booking.customerId,
        paymentReference: payment.processorPaymentId,
        amountCents: payment.amountCents,
        currency: payment.currency,
        idempotencyKey: `payment:${payment.id}:${declined}`,
      });
    } catch (err) {
      const refusal = err instanceof DomainError && err.type === 'payment_error';
      await ctx.db.$transaction(async (tx) => {
        if (refusal) return recordPaymentFailure(tx, origin, submitted, { code: err.code, message: err.message });
        // Unanswered: failed again, with no failed attempt recorded, so the next retry repeats this one.
        const current = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
        await applyBookingAction(tx, origin, submitted, 'payment_failed');
        await runAction(tx, origin, paymentLifecycle, current, 'fail', { failureCode: 'processor_unavailable', failureMessage: 'The payment processor could not be reached.' });
      });
      throw err;
    }
    await ctx.db.$transaction((tx) => recordPaymentSuccess(tx, origin, submitted, paid.id));
    return ctx.db.payment.findUniqueOrThrow({ ...(query as PrismaQuery), where: { id: payment.id } });
  },
});
