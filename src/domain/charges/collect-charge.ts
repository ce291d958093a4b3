import { z } from 'zod';
import { originOf, type EventOrigin } from '../events/event.service.ts';
import { PaymentErrors, ProcessorErrors } from '../payments/payment.errors.ts';
import { recordProcessorCall, settledHere, takeProcessorCall, type CallRecovery, type MoneyContext } from '../payments/processor-calls.ts';
import { recordTransaction } from '../payments/transactions.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { DomainError } from '../shared/errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { ChargeErrors } from './charge.errors.ts';
import { recordChargeFailure, recordChargeSuccess } from './charge-outcomes.ts';
import { chargeLifecycle, chargeMachine } from './charge-state.ts';

export const collectCharge = defineOperation({
  name: 'collectCharge',
  summary: 'Start eligible collection',
  description:
    "Charges the customer's saved card for a pending or failed charge, without them present. Collected: succeeded (charge.succeeded) and a charge transaction. Declined: 402 card_declined, the charge failed (charge.failed) and the booking in problem for a human to follow up. An open dispute on the charge refuses collection (409 charge_disputed). If the processor cannot be reached, the charge is pending again and a retry reaches the processor under the same idempotency key, so the customer is never charged twice.",
  access: { permission: 'charges:write' },
  args: z.object({ id: id('The charge (chg_...).') }),
  errors: [CommonErrors.invalidStateTransition, ChargeErrors.disputed, PaymentErrors.cardDeclined, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { id: 'chg_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args) {
    const charge = await found(ctx.db.charge.findUnique({ where: { id: args.id } }), 'charge', args.id);
    const origin = originOf(ctx);
    // Its compare-and-set makes this request the only one collecting it; the call is on record for the money sweep.
    const { callKey, paymentReference } = await ctx.db.$transaction(async (tx) => {
      await runAction(tx, origin, chargeLifecycle, charge, 'collect');
      // One key per attempt the processor answered: a declined attempt is final, an unanswered one is repeated as it was.
      const declined = await tx.transaction.count({ where: { chargeId: charge.id, type: 'charge', status: 'failed' } });
      const payment = await tx.payment.findUnique({ where: { bookingId: charge.bookingId }, select: { processorPaymentId: true } });
      const call = { callKey: `collect:${charge.id}:${declined}`, paymentReference: payment?.processorPaymentId ?? null };
      await recordProcessorCall(tx, origin, { kind: 'charge_collection', bookingId: charge.bookingId, subjectId: charge.id, idempotencyKey: call.callKey, reference: call.paymentReference, amountCents: charge.amountCents, currency: charge.currency });
      return call;
    });
    let paid: { id: string };
    try {
      paid = await ctx.processor.chargeOffSession({
        bookingId: charge.bookingId,
        customerId: charge.customerId,
        paymentReference,
        amountCents: charge.amountCents,
        currency: charge.currency,
        idempotencyKey: callKey,
      });
    } catch (err) {
      const refused = err instanceof DomainError && err.type === 'payment_error';
      const settlement = refused ? failCollection(ctx, origin, charge.id, callKey, err.code) : interruptCollection(ctx, origin, charge.id, callKey);
      if (await settledHere(settlement)) throw err;
      return ctx.db.charge.findUniqueOrThrow({ where: { id: charge.id } });
    }
    await settledHere(collectionSucceeded(ctx, origin, charge.id, callKey, paid.id));
    return ctx.db.charge.findUniqueOrThrow({ where: { id: charge.id } });
  },
  // A decline the first run recorded answers its 402 again; otherwise the charge as it is (a
  // collection its process died in is settled by the service from the processor's state).
  async replay(ctx, args, { query }, effect) {
    if (!(effect.changed.Charge ?? []).includes(args.id)) return undefined;
    const charge = await ctx.db.charge.findUniqueOrThrow({ ...(query ?? {}), where: { id: args.id } });
    if (charge.state === 'failed' && (effect.created.Transaction ?? []).length > 0) {
      throw charge.failureCode === 'payment_method_missing' ? PaymentErrors.noSavedCard() : PaymentErrors.cardDeclined(`The card was declined (${charge.failureCode ?? 'card_declined'}).`);
    }
    return charge;
  },
});

/** The card was charged: the charge succeeded (charge.succeeded) with its transaction. */
function collectionSucceeded(m: MoneyContext, origin: EventOrigin, chargeId: string, callKey: string, processorPaymentId: string) {
  return m.db.$transaction(async (tx) => {
    await takeProcessorCall(tx, callKey);
    const charge = await tx.charge.findUniqueOrThrow({ where: { id: chargeId } });
    if (chargeMachine.can({ state: charge.state, id: charge.id }, 'succeed')) return void (await recordChargeSuccess(tx, origin, charge, processorPaymentId));
    // A dispute opened while the card was charged keeps the charge disputed: the money moved, the dispute decides.
    await tx.charge.update({ where: { id: charge.id }, data: { processorPaymentId } });
    await recordTransaction(tx, origin, { bookingId: charge.bookingId, chargeId: charge.id, type: 'charge', status: 'succeeded', amountCents: charge.amountCents, currency: charge.currency });
  });
}

/** The card was declined: the charge failed (charge.failed) and the booking needs a human. */
function failCollection(m: MoneyContext, origin: EventOrigin, chargeId: string, callKey: string, failureCode: string) {
  return m.db.$transaction(async (tx) => {
    await takeProcessorCall(tx, callKey);
    const charge = await tx.charge.findUniqueOrThrow({ where: { id: chargeId } });
    if (chargeMachine.can({ state: charge.state, id: charge.id }, 'fail')) await recordChargeFailure(tx, origin, charge, failureCode);
  });
}

/** Unanswered: the charge is pending again, and the next collection repeats this attempt's key. */
function interruptCollection(m: MoneyContext, origin: EventOrigin, chargeId: string, callKey: string) {
  return m.db.$transaction(async (tx) => {
    await takeProcessorCall(tx, callKey);
    const charge = await tx.charge.findUniqueOrThrow({ where: { id: chargeId } });
    if (chargeMachine.can({ state: charge.state, id: charge.id }, 'interrupt')) await runAction(tx, origin, chargeLifecycle, charge, 'interrupt');
  });
}

/** A collection whose request died before settling it: settled as the processor says; one it never received leaves the charge pending, as unanswered. */
export const collectionRecovery: CallRecovery = {
  lostCall: (call) => ({ kind: 'charge', idempotencyKey: call.id, paymentReference: call.reference, amountCents: call.amountCents, currency: call.currency, since: call.createdAt }),
  succeeded: (m, origin, call, processorId) => collectionSucceeded(m, origin, call.subjectId, call.id, processorId),
  refused: (m, origin, call, failure) => failCollection(m, origin, call.subjectId, call.id, failure.code),
  whenAbsent: { unanswered: (m, origin, call) => interruptCollection(m, origin, call.subjectId, call.id) },
};
