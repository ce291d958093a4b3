import { z } from 'zod';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { id } from '../shared/validation.ts';
import { claimUploadedFiles } from './file-usage.ts';

/** Evidence cited when a charge or a dispute is created: uploaded files' ids. */
export const evidenceFileIds = (description: string) => z.array(id('An uploaded file (file_...).')).min(1).max(20).nullish().meta({ description });

/** Evidence as an operation takes it: uploaded files of the caller, with what they show. */
export const evidenceInput = z
  .object({
    fileIds: z.array(id('An uploaded file (file_...).')).min(1).max(20).meta({ description: 'Uploaded files (file_...), at most 20 at a time.' }),
    description: z.string().trim().min(1).max(2000).nullish().meta({ description: 'What the files show.' }),
  })
  .meta({ id: 'EvidenceInput' });

export type EvidenceInput = z.output<typeof evidenceInput>;

/**
 * Cite uploaded files as evidence of a charge or a dispute, in the caller's transaction (the
 * files checked and claimed by claimUploadedFiles).
 */
export async function attachEvidence(tx: Db, origin: EventOrigin, owner: { chargeId: string } | { disputeId: string }, input: EvidenceInput, param: string): Promise<void> {
  const fileIds = await claimUploadedFiles(tx, input.fileIds, () => param);
  await tx.evidence.createMany({
    data: fileIds.map((fileId) => ({ id: newId('evidence'), businessId: origin.businessId, livemode: origin.livemode, ...owner, fileId, description: input.description ?? null })),
  });
}
