import { z } from 'zod';
import type { Charge } from '../../generated/prisma/client.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { flagProblemIfAllowed } from '../bookings/booking-lifecycle.ts';
import { ChargeErrors } from '../charges/charge.errors.ts';
import { chargeLifecycle, chargeMachine } from '../charges/charge-state.ts';
import { originOf, type EventOrigin } from '../events/event.service.ts';
import { recordProcessorCall, settledHere, takeProcessorCall, type CallRecovery, type MoneyContext } from '../payments/processor-calls.ts';
import { PaymentErrors, ProcessorErrors } from '../payments/payment.errors.ts';
import { recordTransaction, settleTransaction } from '../payments/transactions.ts';
import { CommonErrors, validationError } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id, money } from '../shared/validation.ts';
import { depositLifecycle, depositMachine } from './deposit-state.ts';

const captureInput = z
  .object({
    amountCents: money('How much to take; without it, the whole deposit (or, with charge_id, the charge).').refine((n) => n > 0, 'must be greater than 0').nullish(),
    reason: z.string().trim().min(1).max(500).nullish().meta({ description: 'Why, in your words; kept on the capture transaction.' }),
    chargeId: id('A post-trip charge of this booking that the capture pays (chg_...); it must not be under an open dispute.').nullish(),
  })
  .meta({ id: 'CaptureDepositInput' });

export const captureBookingDeposit = defineOperation({
  name: 'captureBookingDeposit',
  summary: 'Capture an eligible deposit',
  description:
    "Takes part or all of the secured deposit once the rental is over (return_in_review, completed, problem); a partial capture releases the rest. With charge_id, the capture pays that charge (its amount, unless it is more than the deposit): the charge is collected, and an open dispute on it refuses the capture (409 charge_disputed). The amount is reserved on the deposit first, then the processor captures it, then the deposit_capture transaction records the outcome; if the processor fails, the deposit is secured again (deposit.capture_failed) and its error is the answer.",
  access: { permission: 'deposits:write' },
  args: z.object({ bookingId: id('The booking (bk_...).'), input: captureInput.nullish() }),
  errors: [CommonErrors.invalidStateTransition, PaymentErrors.amountExceedsAvailable, ChargeErrors.disputed, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { amountCents: 8000, reason: 'bumper scratch', chargeId: 'chg_01jd3m4k5n6p7q8r9s0t1v2w3x' } },
  async run(ctx, args, { query }) {
    const input = args.input ?? {};
    const booking = await readBooking(ctx, args.bookingId);
    const deposit = await found(ctx.db.deposit.findUnique({ where: { bookingId: booking.id } }), 'booking', booking.id);
    const record = { ...deposit, bookingState: booking.state };
    depositMachine.check(record, 'capture');
    let charge: Charge | null = null;
    if (input.chargeId) {
      charge = await found(ctx.db.charge.findUnique({ where: { id: input.chargeId } }), 'charge', input.chargeId, 'charge_id');
      if (charge.bookingId !== booking.id) throw validationError('charge_id', `Invalid charge_id: charge ${charge.id} belongs to another booking.`);
      chargeMachine.check({ state: charge.state, id: charge.id }, 'collect');
    }
    const amount = input.amountCents ?? charge?.amountCents ?? deposit.amountCents;
    if (amount > deposit.amountCents) throw PaymentErrors.amountExceedsAvailable('captured', deposit.amountCents, deposit.currency);
    if (charge && amount !== charge.amountCents) throw validationError('amount_cents', `Invalid amount_cents: a capture for charge ${charge.id} takes its amount (${charge.amountCents}).`);

    const origin = originOf(ctx);
    const transactionId = newId('transaction');
    const callKey = `capture:${transactionId}`;
    const holdId = deposit.processorHoldId ?? deposit.id;
    // Reserve: the deposit's compare-and-set allows one capture; the charge is being collected.
    await ctx.db.$transaction(async (tx) => {
      await runAction(tx, origin, depositLifecycle, record, amount === deposit.amountCents ? 'capture' : 'capture_partially', { capturedCents: amount });
      await recordTransaction(tx, origin, { id: transactionId, bookingId: booking.id, chargeId: charge?.id, type: 'deposit_capture', status: 'pending', amountCents: amount, currency: deposit.currency, reason: input.reason ?? null });
      await recordProcessorCall(tx, origin, { kind: 'deposit_capture', bookingId: booking.id, subjectId: transactionId, idempotencyKey: callKey, reference: holdId, amountCents: amount, currency: deposit.currency });
      if (charge) await runAction(tx, origin, chargeLifecycle, charge, 'collect');
    });

    try {
      await ctx.processor.captureDeposit({ holdId, amountCents: amount, idempotencyKey: callKey });
    } catch (err) {
      if (await settledHere(reverseCapture(ctx, origin, transactionId, callKey))) throw err;
      return ctx.db.deposit.findUniqueOrThrow({ ...query, where: { id: deposit.id } });
    }
    await settledHere(settleCapture(ctx, origin, transactionId, callKey));
    return ctx.db.deposit.findUniqueOrThrow({ ...query, where: { id: deposit.id } });
  },
});

/** The processor captured it: the transaction succeeded, the rest of a partial hold was let go, a charge it pays is collected. */
function settleCapture(m: MoneyContext, origin: EventOrigin, transactionId: string, callKey: string) {
  return m.db.$transaction(async (tx) => {
    await takeProcessorCall(tx, callKey);
    await settleTransaction(tx, transactionId, 'succeeded');
    const capture = await tx.transaction.findUniqueOrThrow({ where: { id: transactionId } });
    const deposit = await tx.deposit.findUniqueOrThrow({ where: { bookingId: capture.bookingId } });
    // A partial capture lets the rest of the hold go.
    if (capture.amountCents < deposit.amountCents) {
      await recordTransaction(tx, origin, { bookingId: capture.bookingId, type: 'deposit_release', status: 'succeeded', amountCents: deposit.amountCents - capture.amountCents, currency: deposit.currency });
    }
    if (capture.chargeId) {
      const collecting = await tx.charge.findUniqueOrThrow({ where: { id: capture.chargeId } });
      // A dispute opened meanwhile keeps the charge disputed; the capture stands and the dispute decides.
      if (chargeMachine.can({ state: collecting.state, id: collecting.id }, 'succeed')) await runAction(tx, origin, chargeLifecycle, collecting, 'succeed', { failureCode: null });
    }
  });
}

/** The processor did not capture it: the deposit is secured again (deposit.capture_failed); a charge it was paying failed, and the booking needs a human. */
function reverseCapture(m: MoneyContext, origin: EventOrigin, transactionId: string, callKey: string) {
  return m.db.$transaction(async (tx) => {
    await takeProcessorCall(tx, callKey);
    const capture = await tx.transaction.findUniqueOrThrow({ where: { id: transactionId } });
    const booking = await tx.booking.findUniqueOrThrow({ where: { id: capture.bookingId } });
    const current = await tx.deposit.findUniqueOrThrow({ where: { bookingId: booking.id } });
    await runAction(tx, origin, depositLifecycle, { ...current, bookingState: booking.state }, 'reverse_capture', { capturedCents: 0 });
    await settleTransaction(tx, transactionId, 'failed');
    if (capture.chargeId) {
      // The charge was not collected: failed, and the booking needs a human (the contract's "Money").
      const collecting = await tx.charge.findUniqueOrThrow({ where: { id: capture.chargeId } });
      if (chargeMachine.can({ state: collecting.state, id: collecting.id }, 'fail')) await runAction(tx, origin, chargeLifecycle, collecting, 'fail', { failureCode: 'deposit_capture_failed' });
      await flagProblemIfAllowed(tx, origin, booking);
    }
  });
}

/** A capture whose request died before settling it: the business decided it, so one never received is made now, under its key. */
export const captureRecovery: CallRecovery = {
  lostCall: (call) => ({ kind: 'capture', idempotencyKey: call.id, holdId: call.reference ?? '', amountCents: call.amountCents }),
  succeeded: (m, origin, call) => settleCapture(m, origin, call.subjectId, call.id),
  refused: (m, origin, call) => reverseCapture(m, origin, call.subjectId, call.id),
  whenAbsent: { resume: (m, call) => m.processor.captureDeposit({ holdId: call.reference ?? '', amountCents: call.amountCents, idempotencyKey: call.id }) },
};
