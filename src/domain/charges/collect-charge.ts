import { z } from 'zod';
import { originOf } from '../events/event.service.ts';
import { PaymentErrors, ProcessorErrors } from '../payments/payment.errors.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { DomainError } from '../shared/errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { ChargeErrors } from './charge.errors.ts';
import { recordChargeFailure, recordChargeSuccess } from './charge-outcomes.ts';
import { chargeLifecycle } from './charge-state.ts';

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
    // Its compare-and-set makes this request the only one collecting it.
    const collecting = await ctx.db.$transaction((tx) => runAction(tx, origin, chargeLifecycle, charge, 'collect'));
    // One key per attempt the processor answered: a declined attempt is final, an unanswered one is repeated as it was.
    const declined = await ctx.db.transaction.count({ where: { chargeId: charge.id, type: 'charge', status: 'failed' } });
    const payment = await ctx.db.payment.findUnique({ where: { bookingId: charge.bookingId }, select: { processorPaymentId: true } });
    let paid: { id: string };
    try {
      paid = await ctx.processor.chargeOffSession({
        bookingId: charge.bookingId,
        customerId: charge.customerId,
        paymentReference: payment?.processorPaymentId ?? null,
        amountCents: charge.amountCents,
        currency: charge.currency,
        idempotencyKey: `collect:${charge.id}:${declined}`,
      });
    } catch (err) {
      if (err instanceof DomainError && err.type === 'payment_error') {
        await ctx.db.$transaction((tx) => recordChargeFailure(tx, origin, collecting, err.code));
        throw err;
      }
      await ctx.db.$transaction((tx) => runAction(tx, origin, chargeLifecycle, collecting, 'interrupt'));
      throw err;
    }
    return (await ctx.db.$transaction((tx) => recordChargeSuccess(tx, origin, collecting, paid.id))).charge;
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
