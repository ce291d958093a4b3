import { z } from 'zod';
import { loadSettings } from '../business/business-settings.ts';
import { carryOutRelease, reserveRelease } from '../deposits/release-deposit.ts';
import { depositMachine } from '../deposits/deposit-state.ts';
import { refundDue, stopPaymentOnCancel } from '../payments/payment-cancel.ts';
import { carryOutRefund, reserveExtensionRefunds, reserveRefund, type RefundReservation } from '../payments/refund-payment.ts';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { DomainError } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { applyBookingAction } from './booking-transitions.ts';
import { readBooking } from './get-booking.ts';

const cancelInput = z
  .object({ reason: z.string().trim().max(500).nullish().meta({ description: 'Why, in your words; shown as cancellation_reason.' }) })
  .meta({ id: 'CancelBookingInput' });

export const cancelBooking = defineOperation({
  name: 'cancelBooking',
  summary: 'Cancel a booking',
  description:
    "Allowed before pickup. The booking is canceled (booking.canceled) and frees its vehicle. A paid booking is refunded through the processor by the cancellation policy (in full at least cancellation_window_hours before start_at, else late_cancellation_refund_percent) and ends refunded once the money went back; an extended booking's extension charges are refunded by the same policy, each by a refund of its own against the charge it gives back (a refund transaction whose refunded_transaction_id names the extension); a secured deposit's hold is let go. If the processor fails a refund, the booking stays canceled, the refund is given back to the payment (payment.refund_failed) and POST .../refund tries again; a hold the processor did not let go stays secured for POST .../deposit/release. If the serving process stops before the processor has answered, the money sweep finishes the refund and the release, once.",
  access: { permission: 'bookings:write' },
  args: z.object({ id: id('The booking (bk_...).'), input: cancelInput.nullish() }),
  errors: [CommonErrors.invalidStateTransition],
  example: { id: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { reason: 'customer changed plans' } },
  async run(ctx, args, { query }) {
    const { settings } = await loadSettings(ctx);
    const booking = await readBooking(ctx, args.id);
    const now = ctx.now();
    const origin = originOf(ctx);
    // The booking's compare-and-set makes this the one cancellation; the refund and the
    // release of the deposit's hold are reserved with it (on record for the money sweep).
    const { refunds, release } = await ctx.db.$transaction(async (tx) => {
      const changes = { canceledAt: now, cancellationReason: args.input?.reason ?? 'requested_by_business' };
      const canceled = await applyBookingAction(tx, origin, booking, 'cancel', changes);
      const payment = await tx.payment.findUnique({ where: { bookingId: booking.id } });
      const due = payment ? refundDue(payment, booking.startAt, now, settings) : 0;
      const reservations: RefundReservation[] = [];
      if (payment && due > 0) reservations.push(await reserveRefund(tx, origin, payment, due, 'canceled'));
      else if (payment) await stopPaymentOnCancel(tx, origin, payment);
      // The extra time an extension charged goes back by the same policy, each against its own charge.
      reservations.push(...(await reserveExtensionRefunds(tx, origin, booking, now, settings, 'canceled')));
      const deposit = await tx.deposit.findUnique({ where: { bookingId: booking.id } });
      const releasable = deposit && depositMachine.can({ ...deposit, bookingState: canceled.state }, 'release');
      return { refunds: reservations, release: releasable ? { deposit, callKey: await reserveRelease(tx, origin, deposit) } : null };
    });
    // The money moves after the cancellation is committed; a processor failure leaves it to be retried.
    const tolerate = (err: unknown) => {
      if (!(err instanceof DomainError && (err.type === 'integration_error' || err.type === 'payment_error'))) throw err;
    };
    for (const refund of refunds) await carryOutRefund(ctx, origin, refund).catch(tolerate);
    if (release) await carryOutRelease(ctx, origin, release.deposit, release.callKey).catch(tolerate);
    return ctx.db.booking.findUniqueOrThrow({ ...(query ?? {}), where: { id: booking.id } });
  },
});
