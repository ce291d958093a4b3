import { z } from 'zod';
import type { Payment } from '../../generated/prisma/client.ts';
import { loadSettings } from '../business/business-settings.ts';
import { refundDue } from '../bookings/cancel-booking.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation, wantsRelations, type PrismaQuery } from '../shared/operation.ts';
import { id, money } from '../shared/validation.ts';
import { PaymentErrors, ProcessorErrors } from './payment.errors.ts';
import { paymentLifecycle, paymentMachine } from './payment-state.ts';
import { recordTransaction, settleTransaction } from './transactions.ts';

const refundInput = z
  .object({
    amountCents: money('How much to give back; without it, what the cancellation policy allows.').refine((n) => n > 0, 'must be greater than 0').nullish(),
    reason: z.string().trim().min(1).max(500).nullish().meta({ description: 'Why, in your words; kept on the refund transaction.' }),
  })
  .meta({ id: 'RefundInput' });

/**
 * Give back part or all of a booking's collected payment. The amount is reserved on the
 * payment first (its state table, and a database check that refunds never exceed the payment,
 * hold under concurrency), then the processor refunds it under an idempotency key, then the
 * refund transaction records the outcome. A processor failure gives the reservation back
 * (`payment.refund_failed`) and answers its error: nothing is left half-written.
 */
export async function refundPayment(ctx: DomainContext, bookingId: string, input: z.output<typeof refundInput> | null | undefined, query: PrismaQuery = {}) {
  const booking = await readBooking(ctx, bookingId);
  const payment = await found(ctx.db.payment.findUnique({ where: { bookingId: booking.id } }), 'booking', booking.id);
  paymentMachine.check(payment, 'refund_partially');
  const available = payment.amountCents - payment.amountRefundedCents;
  let amount = input?.amountCents ?? null;
  if (amount === null) {
    const { settings } = await loadSettings(ctx);
    amount = refundDue(payment, booking.startAt, ctx.now(), settings);
    if (amount <= 0) throw PaymentErrors.nothingRefundable(booking.startAt);
  }
  if (amount > available) throw PaymentErrors.amountExceedsAvailable('refunded', available, payment.currency);

  const origin = originOf(ctx);
  const transactionId = newId('transaction');
  // Reserve: the payment's compare-and-set serializes refunds; the database's check stops any that would exceed it.
  const reserved = await ctx.db.$transaction(async (tx) => {
    const refunded = payment.amountRefundedCents + amount;
    const updated = await runAction(tx, origin, paymentLifecycle, payment, refunded >= payment.amountCents ? 'refund_fully' : 'refund_partially', { amountRefundedCents: refunded });
    await recordTransaction(tx, origin, { id: transactionId, bookingId: booking.id, type: 'refund', status: 'pending', amountCents: amount, currency: payment.currency, reason: input?.reason ?? null });
    return updated;
  });

  try {
    await ctx.processor.refund({ processorPaymentId: payment.processorPaymentId ?? payment.id, amountCents: amount, idempotencyKey: `refund:${transactionId}` });
  } catch (err) {
    await ctx.db.$transaction(async (tx) => {
      const current = await tx.payment.findUniqueOrThrow({ where: { id: payment.id } });
      const refunded = current.amountRefundedCents - amount;
      await runAction(tx, origin, paymentLifecycle, current, refunded > 0 ? 'reverse_refund_partially' : 'reverse_refund', { amountRefundedCents: refunded });
      await settleTransaction(tx, transactionId, 'failed');
    });
    throw err;
  }
  await ctx.db.$transaction((tx) => settleTransaction(tx, transactionId, 'succeeded'));
  return wantsRelations(query) ? ctx.db.payment.findUniqueOrThrow({ ...query, where: { id: payment.id } }) : (reserved satisfies Payment);
}

export const refundBookingPayment = defineOperation({
  name: 'refundBookingPayment',
  summary: 'Request an eligible refund',
  description:
    "Gives back part (amount_cents) or all of the booking's collected payment; without an amount, what the business's cancellation policy allows (in full at least cancellation_window_hours before start_at, else late_cancellation_refund_percent of what was paid). Never more than paid minus already refunded, also under concurrency: 409 amount_exceeds_available names what is available. The payment moves to partially_refunded or refunded (payment.refunded) and a refund transaction records it; if the processor fails, nothing stays changed (payment.refund_failed) and its error is the answer.",
  access: { permission: 'payments:write' },
  args: z.object({ bookingId: id('The booking (bk_...).'), input: refundInput.nullish() }),
  errors: [CommonErrors.invalidStateTransition, PaymentErrors.amountExceedsAvailable, PaymentErrors.nothingRefundable, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { amountCents: 2500, reason: 'late pickup, goodwill' } },
  run: (ctx, args, { query }) => refundPayment(ctx, args.bookingId, args.input, query),
});
