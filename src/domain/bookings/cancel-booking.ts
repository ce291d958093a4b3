import { CommonErrors } from '../shared/common.errors.ts';
import { z } from 'zod';
import type { Payment } from '../../generated/prisma/client.ts';
import { loadSettings, type BusinessSettings } from '../business/business-settings.ts';
import { releaseDepositOnCancel, settlePaymentOnCancel } from '../payments/payment-cancel.ts';
import { originOf } from '../events/event.service.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { applyBookingAction } from './booking-transitions.ts';
import { readBooking } from './get-booking.ts';

const cancelInput = z
  .object({ reason: z.string().trim().max(500).nullish().meta({ description: 'Why, in your words; shown as cancellation_reason.' }) })
  .meta({ id: 'CancelBookingInput' });

/** What the cancellation policy refunds (the contract's "Money"). */
export function refundDue(payment: Pick<Payment, 'state' | 'amountCents' | 'amountRefundedCents'>, startAt: Date, now: Date, settings: Pick<BusinessSettings, 'cancellation_window_hours' | 'late_cancellation_refund_percent'>): number {
  if (payment.state !== 'succeeded' && payment.state !== 'partially_refunded') return 0;
  const refundable = payment.amountCents - payment.amountRefundedCents;
  const inWindow = startAt.getTime() - now.getTime() >= settings.cancellation_window_hours * 3_600_000;
  return inWindow ? refundable : Math.floor((refundable * settings.late_cancellation_refund_percent) / 100);
}

export const cancelBooking = defineOperation({
  name: 'cancelBooking',
  summary: 'Cancel a booking',
  description:
    'Allowed before pickup. A paid booking is refunded by the cancellation policy (in full at least cancellation_window_hours before start_at, else late_cancellation_refund_percent) and ends refunded when money goes back, else canceled; a secured deposit is released.',
  access: { permission: 'bookings:write' },
  args: z.object({ id: id('The booking (bk_...).'), input: cancelInput.nullish() }),
  errors: [CommonErrors.invalidStateTransition],
  example: { id: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { reason: 'customer changed plans' } },
  async run(ctx, args, { query }) {
    const { settings } = await loadSettings(ctx);
    const booking = await readBooking(ctx, args.id);
    const now = ctx.now();
    return ctx.db.$transaction(async (tx) => {
      const payment = await tx.payment.findUnique({ where: { bookingId: booking.id } });
      const refundCents = payment ? refundDue(payment, booking.startAt, now, settings) : 0;
      const origin = originOf(ctx);
      const changes = { canceledAt: now, cancellationReason: args.input?.reason ?? 'requested_by_business' };
      const canceled = await applyBookingAction(tx, origin, booking, refundCents > 0 ? 'cancel_with_refund' : 'cancel', changes);
      if (payment) await settlePaymentOnCancel(tx, origin, payment, refundCents, now);
      await releaseDepositOnCancel(tx, origin, canceled, now);
      return query && Object.keys(query).length ? tx.booking.findUniqueOrThrow({ ...query, where: { id: booking.id } }) : canceled;
    });
  },
});
