import { z } from 'zod';
import { readBooking } from '../bookings/get-booking.ts';
import type { Booking, Deposit } from '../../generated/prisma/client.ts';
import type { BookingState } from '../../generated/prisma/enums.ts';
import { originOf, type EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { recordProcessorCall, settledHere, takeProcessorCall, type CallRecovery, type MoneyContext } from '../payments/processor-calls.ts';
import { ProcessorErrors } from '../payments/payment.errors.ts';
import { recordTransaction } from '../payments/transactions.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { depositLifecycle, depositMachine } from './deposit-state.ts';

/** The hold was let go: `deposit.released` and a deposit_release transaction, in the caller's transaction. */
async function recordRelease(tx: Db, origin: EventOrigin, deposit: Deposit, bookingState: BookingState, now: Date) {
  await runAction(tx, origin, depositLifecycle, { ...deposit, bookingState }, 'release', { releasedAt: now });
  await recordTransaction(tx, origin, { bookingId: deposit.bookingId, type: 'deposit_release', status: 'succeeded', amountCents: deposit.amountCents, currency: deposit.currency });
}

/**
 * Let a secured deposit's hold go: the processor first (releasing twice is harmless), then
 * `deposit.released` and a deposit_release transaction record it.
 */
export async function releaseHeldDeposit(ctx: MoneyContext, origin: EventOrigin, booking: Booking, deposit: Deposit): Promise<void> {
  await ctx.processor.releaseDeposit({ holdId: deposit.processorHoldId ?? deposit.id, idempotencyKey: `release:${deposit.id}` });
  await ctx.db.$transaction((tx) => recordRelease(tx, origin, deposit, booking.state, ctx.now()));
}

/** Put on record, in a cancellation's transaction, the release of the deposit's hold that follows it. */
export async function reserveRelease(tx: Db, origin: EventOrigin, deposit: Deposit): Promise<string> {
  const callKey = `release:${deposit.id}`;
  await recordProcessorCall(tx, origin, { kind: 'deposit_release', bookingId: deposit.bookingId, subjectId: deposit.id, idempotencyKey: callKey, reference: deposit.processorHoldId ?? deposit.id, amountCents: deposit.amountCents, currency: deposit.currency });
  return callKey;
}

/** The processor let the hold go: recorded, as the deposit and its booking are now. */
function settleRelease(m: MoneyContext, origin: EventOrigin, depositId: string, callKey: string) {
  return m.db.$transaction(async (tx) => {
    await takeProcessorCall(tx, callKey);
    const deposit = await tx.deposit.findUniqueOrThrow({ where: { id: depositId } });
    const booking = await tx.booking.findUniqueOrThrow({ where: { id: deposit.bookingId }, select: { state: true } });
    await recordRelease(tx, origin, deposit, booking.state, m.now());
  });
}

/** The processor did not let it go: the deposit stays secured, for POST .../deposit/release. */
const keepHold = (m: MoneyContext, callKey: string) => m.db.$transaction((tx) => takeProcessorCall(tx, callKey));

/**
 * Carry out a release put on record by `reserveRelease`. A processor failure leaves the
 * deposit secured and is thrown.
 */
export async function carryOutRelease(m: MoneyContext, origin: EventOrigin, deposit: Deposit, callKey: string): Promise<void> {
  try {
    await m.processor.releaseDeposit({ holdId: deposit.processorHoldId ?? deposit.id, idempotencyKey: callKey });
  } catch (err) {
    if (await settledHere(keepHold(m, callKey))) throw err;
    return;
  }
  await settledHere(settleRelease(m, origin, deposit.id, callKey));
}

/** A cancellation's release whose request died before settling it: owed, so one never received is made now. */
export const releaseRecovery: CallRecovery = {
  lostCall: (call) => ({ kind: 'release', idempotencyKey: call.id, holdId: call.reference ?? call.subjectId }),
  succeeded: (m, origin, call) => settleRelease(m, origin, call.subjectId, call.id),
  refused: (m, _origin, call) => keepHold(m, call.id),
  whenAbsent: {
    async resume(m, call) {
      await m.processor.releaseDeposit({ holdId: call.reference ?? call.subjectId, idempotencyKey: call.id });
      return { id: call.reference ?? call.subjectId };
    },
  },
};

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
