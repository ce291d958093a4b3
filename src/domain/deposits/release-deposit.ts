import { z } from 'zod';
import { readBooking } from '../bookings/get-booking.ts';
import type { Booking, Deposit } from '../../generated/prisma/client.ts';
import { originOf, type EventOrigin } from '../events/event.service.ts';
import type { DomainContext } from '../shared/context.ts';
import { ProcessorErrors } from '../payments/payment.errors.ts';
import { recordTransaction } from '../payments/transactions.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { depositLifecycle, depositMachine } from './deposit-state.ts';

/**
 * Let a secured deposit's hold go: the processor first (releasing twice is harmless), then
 * `deposit.released` and a deposit_release transaction record it.
 */
export async function releaseHeldDeposit(ctx: DomainContext, origin: EventOrigin, booking: Booking, deposit: Deposit): Promise<void> {
  const record = { ...deposit, bookingState: booking.state };
  await ctx.processor.releaseDeposit({ holdId: deposit.processorHoldId ?? deposit.id, idempotencyKey: `release:${deposit.id}` });
  await ctx.db.$transaction(async (tx) => {
    await runAction(tx, origin, depositLifecycle, record, 'release', { releasedAt: ctx.now() });
    await recordTransaction(tx, origin, { bookingId: booking.id, type: 'deposit_release', status: 'succeeded', amountCents: deposit.amountCents, currency: deposit.currency });
  });
}

export const releaseBookingDeposit = defineOperation({
  name: 'releaseBookingDeposit',
  summary: 'Release an eligible deposit',
  description:
    "Lets the deposit's hold go at the processor: allowed once the rental is over (return_in_review, completed, problem) or the booking is canceled. The deposit moves to released (deposit.released) and a deposit_release transaction records it.",
  access: { permission: 'deposits:write' },
  args: z.object({ bookingId: id('The booking (bk_...).') }),
  errors: [CommonErrors.invalidStateTransition, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    const deposit = await found(ctx.db.deposit.findUnique({ where: { bookingId: booking.id } }), 'booking', booking.id);
    const record = { ...deposit, bookingState: booking.state };
    depositMachine.check(record, 'release');
    await releaseHeldDeposit(ctx, originOf(ctx), booking, deposit);
    return ctx.db.deposit.findUniqueOrThrow({ ...query, where: { id: deposit.id } });
  },
});
