import { z } from 'zod';
import { disputeLifecycle } from '../disputes/dispute-state.ts';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { attachEvidence, evidenceInput } from './evidence.ts';
import { FileErrors } from './file.errors.ts';

const EXAMPLE_EVIDENCE = { fileIds: ['file_01jd3m4k5n6p7q8r9s0t1v2w3x'], description: 'Photos of the rear bumper at return' };

export const addChargeEvidence = defineOperation({
  name: 'addChargeEvidence',
  summary: 'Add evidence',
  description:
    "Cites uploaded files (file_ids, with a description of what they show) as evidence of a post-trip charge, in any of its states. Files must be this business's and environment's, and uploaded (422 file_not_usable naming the file). A file cited by a charge under an open dispute cannot be deleted until the dispute is settled.",
  access: { permission: 'charges:write' },
  args: z.object({ id: id('The charge (chg_...).'), input: evidenceInput }),
  errors: [FileErrors.notUsable],
  example: { id: 'chg_01jd3m4k5n6p7q8r9s0t1v2w3x', input: EXAMPLE_EVIDENCE },
  async run(ctx, args, { query }) {
    const charge = await found(ctx.db.charge.findUnique({ where: { id: args.id } }), 'charge', args.id);
    await ctx.db.$transaction((tx) => attachEvidence(tx, originOf(ctx), { chargeId: charge.id }, args.input, 'file_ids'));
    return ctx.db.charge.findUniqueOrThrow({ ...query, where: { id: charge.id } });
  },
});

export const addDisputeEvidence = defineOperation({
  name: 'addDisputeEvidence',
  summary: 'Add dispute evidence',
  description:
    "Cites uploaded files (file_ids, with a description) as evidence of an open dispute: the dispute is under_review (dispute.updated). A settled dispute (approved, closed) takes no more evidence (409 invalid_state_transition). Its files cannot be deleted while it is open (409 file_in_use).",
  access: { permission: 'disputes:write' },
  args: z.object({ id: id('The dispute (dsp_...).'), input: evidenceInput }),
  errors: [CommonErrors.invalidStateTransition, FileErrors.notUsable],
  example: { id: 'dsp_01jd3m4k5n6p7q8r9s0t1v2w3x', input: EXAMPLE_EVIDENCE },
  async run(ctx, args, { query }) {
    const dispute = await found(ctx.db.dispute.findUnique({ where: { id: args.id } }), 'dispute', args.id);
    const origin = originOf(ctx);
    await ctx.db.$transaction(async (tx) => {
      // The dispute's compare-and-set first: a dispute settled meanwhile takes nothing.
      await runAction(tx, origin, disputeLifecycle, dispute, 'add_evidence');
      await attachEvidence(tx, origin, { disputeId: dispute.id }, args.input, 'file_ids');
    });
    return ctx.db.dispute.findUniqueOrThrow({ ...query, where: { id: dispute.id } });
  },
});
