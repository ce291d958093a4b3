import { z } from 'zod';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id, newMetadata } from '../shared/validation.ts';
import { attachEvidence, evidenceFileIds } from '../files/evidence.ts';
import { FileErrors } from '../files/file.errors.ts';
import { openDispute } from './open-dispute.ts';

const disputeInput = z
  .object({
    reason: z.string().trim().min(1).max(200).meta({ description: "The customer's reason, in a few words (e.g. damage_preexisting)." }),
    description: z.string().trim().min(1).max(5000).nullish().meta({ description: "The customer's account, in full." }),
    evidence: evidenceFileIds("Uploaded files (file_...) of the customer's side; more can be added with POST /v1/disputes/{id}/evidence."),
    metadata: newMetadata,
  })
  .meta({ id: 'CreateDisputeInput' });

export const createDispute = defineOperation({
  name: 'createDispute',
  summary: 'Create a dispute for a charge',
  description:
    "Records the customer contesting a charge: the dispute is open (dispute.created) and the charge is disputed, which locks its collection and any deposit capture for it (409 charge_disputed) until the dispute is approved (the charge is waived, and refunded if it had been collected) or closed (the charge stands again). The booking's other safeguards stay in force. A charge already disputed or waived cannot be disputed again.",
  access: { permission: 'disputes:write' },
  args: z.object({ chargeId: id('The charge (chg_...).'), input: disputeInput }),
  errors: [CommonErrors.invalidStateTransition, FileErrors.notUsable],
  example: { chargeId: 'chg_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { reason: 'damage_preexisting', description: 'The scratch is in the pickup photos.' } },
  async run(ctx, args) {
    const charge = await found(ctx.db.charge.findUnique({ where: { id: args.chargeId } }), 'charge', args.chargeId);
    const { reason, description, metadata, evidence } = args.input;
    const origin = originOf(ctx);
    return ctx.db.$transaction(async (tx) => {
      const dispute = await openDispute(tx, origin, charge, { reason, description: description ?? null, metadata });
      if (evidence) await attachEvidence(tx, origin, { disputeId: dispute.id }, { fileIds: evidence, description: null }, 'evidence');
      return dispute;
    });
  },
});
