import { z } from 'zod';
import type { Charge, Dispute } from '../../generated/prisma/client.ts';
import { chargeLifecycle } from '../charges/charge-state.ts';
import { originOf } from '../events/event.service.ts';
import { ProcessorErrors } from '../payments/payment.errors.ts';
import { recordTransaction } from '../payments/transactions.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { disputeLifecycle, disputeMachine } from './dispute-state.ts';

const args = z.object({ id: id('The dispute (dsp_...).') });
const example = { id: 'dsp_01jd3m4k5n6p7q8r9s0t1v2w3x' };

/** The dispute and its charge, and how the charge was collected if it was (by card, or from the deposit). */
async function disputeAndCharge(ctx: DomainContext, disputeId: string) {
  const dispute = await found(ctx.db.dispute.findUnique({ where: { id: disputeId } }), 'dispute', disputeId);
  const charge = (await ctx.db.charge.findUnique({ where: { id: dispute.chargeId } })) as Charge;
  const collected = await ctx.db.transaction.findFirst({ where: { chargeId: charge.id, status: 'succeeded', type: { in: ['charge', 'deposit_capture'] } }, orderBy: { id: 'desc' } });
  return { dispute: { ...dispute, bookingId: charge.bookingId }, charge, collected };
}

export const approveDispute = defineOperation({
  name: 'approveDispute',
  summary: 'Approve an eligible dispute',
  description:
    "Accepts the customer's claim: the dispute is approved (dispute.approved) and its charge waived (charge.waived). A charge already collected is refunded through the processor first, with a refund transaction; if the processor fails, nothing changes and its error is the answer.",
  access: { permission: 'disputes:write' },
  args,
  errors: [CommonErrors.invalidStateTransition, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example,
  async run(ctx, { id: disputeId }, { query }) {
    const { dispute, charge, collected } = await disputeAndCharge(ctx, disputeId);
    disputeMachine.check(dispute, 'approve');
    if (collected) {
      // Refunding twice under one key is one refund, so the processor may go first.
      const holdOrPayment = collected.type === 'deposit_capture' ? (await ctx.db.deposit.findUnique({ where: { bookingId: charge.bookingId } }))?.processorHoldId : charge.processorPaymentId;
      await ctx.processor.refund({ processorPaymentId: holdOrPayment ?? charge.id, amountCents: collected.amountCents, idempotencyKey: `dispute:${dispute.id}` });
    }
    const origin = originOf(ctx);
    const approved = await ctx.db.$transaction(async (tx) => {
      const done = await runAction(tx, origin, disputeLifecycle, dispute, 'approve');
      await runAction(tx, origin, chargeLifecycle, charge, 'waive_disputed');
      if (collected) {
        await recordTransaction(tx, origin, { bookingId: charge.bookingId, chargeId: charge.id, type: 'refund', status: 'succeeded', amountCents: collected.amountCents, currency: charge.currency, reason: `dispute ${dispute.id} approved` });
      }
      return done;
    });
    return withQuery(ctx, approved, query);
  },
});

export const closeDispute = defineOperation({
  name: 'closeDispute',
  summary: 'Close a dispute',
  description: 'Rejects the claim: the dispute is closed (dispute.closed) and its charge stands again, pending collection, or collected as it was.',
  access: { permission: 'disputes:write' },
  args,
  errors: [CommonErrors.invalidStateTransition],
  example,
  async run(ctx, { id: disputeId }, { query }) {
    const { dispute, charge, collected } = await disputeAndCharge(ctx, disputeId);
    const origin = originOf(ctx);
    const closed = await ctx.db.$transaction(async (tx) => {
      const done = await runAction(tx, origin, disputeLifecycle, dispute, 'close');
      await runAction(tx, origin, chargeLifecycle, charge, collected ? 'reinstate_collected' : 'reinstate');
      return done;
    });
    return withQuery(ctx, closed, query);
  },
});

function withQuery(ctx: DomainContext, dispute: Dispute, query: Record<string, unknown> | undefined) {
  return query && Object.keys(query).length ? ctx.db.dispute.findUniqueOrThrow({ ...query, where: { id: dispute.id } }) : dispute;
}
