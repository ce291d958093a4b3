import { z } from 'zod';
import { bookingMachine } from '../bookings/booking-state.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { PaymentErrors, ProcessorErrors } from '../payments/payment.errors.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { DomainError } from '../shared/errors.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { secureDeposit } from './deposit-hold.ts';
import { depositLifecycle, depositMachine } from './deposit-state.ts';

export const secureBookingDeposit = defineOperation({
  name: 'secureBookingDeposit',
  summary: 'Create or secure a deposit',
  description:
    "Places the booking's security deposit as a hold on the customer's card through the processor (an authorization: nothing is taken unless captured later). The deposit moves to secured (deposit.secured), a deposit_hold transaction records it, the booking's deposit gate is satisfied (a rental cannot start before) and the booking advances if it now can. A declined card answers 402 card_declined and the deposit is failed; it may be tried again.",
  access: { permission: 'deposits:write' },
  args: z.object({ bookingId: id('The booking (bk_...).') }),
  errors: [CommonErrors.invalidStateTransition, PaymentErrors.cardDeclined, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    const deposit = await found(ctx.db.deposit.findUnique({ where: { bookingId: booking.id } }), 'booking', booking.id);
    const record = { ...deposit, bookingState: booking.state };
    // Refused before the processor hears of it.
    depositMachine.check(record, 'secure');
    bookingMachine.check(booking, 'secure_deposit');
    const origin = originOf(ctx);
    const payment = await ctx.db.payment.findUnique({ where: { bookingId: booking.id }, select: { processorPaymentId: true } });
    let holdId: string;
    try {
      ({ id: holdId } = await ctx.processor.holdDeposit({
        bookingId: booking.id,
        paymentReference: payment?.processorPaymentId ?? null,
        amountCents: deposit.amountCents,
        currency: deposit.currency,
        idempotencyKey: `deposit:${deposit.id}:${ctx.idempotencyKey ?? newId('request')}`,
      }));
    } catch (err) {
      if (err instanceof DomainError && err.type === 'payment_error' && depositMachine.can(record, 'fail')) {
        await ctx.db.$transaction((tx) => runAction(tx, origin, depositLifecycle, record, 'fail'));
      }
      throw err;
    }
    await ctx.db.$transaction((tx) => secureDeposit(tx, origin, booking, ctx.now(), holdId));
    return ctx.db.deposit.findUniqueOrThrow({ ...query, where: { id: deposit.id } });
  },
});
