import { z } from 'zod';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { id } from '../shared/validation.ts';
import { FileErrors } from './file.errors.ts';

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
 * Cite uploaded files as evidence of a charge or a dispute, in the caller's transaction. Each
 * file must be the caller's and uploaded; the files' rows are touched (a compare-and-set on
 * their state), so a delete running at the same moment is refused rather than leaving
 * evidence without its file.
 */
export async function attachEvidence(tx: Db, origin: EventOrigin, owner: { chargeId: string } | { disputeId: string }, input: EvidenceInput, param: string): Promise<void> {
  const fileIds = [...new Set(input.fileIds)];
  const files = await tx.file.findMany({ where: { id: { in: fileIds } }, select: { id: true, state: true } });
  for (const fileId of fileIds) {
    const file = files.find((f) => f.id === fileId);
    if (!file) throw FileErrors.notUsable(param, fileId, 'no such file');
    if (file.state !== 'uploaded') throw FileErrors.notUsable(param, fileId, `it is ${file.state}`);
  }
  const touched = await tx.file.updateMany({ where: { id: { in: fileIds }, state: 'uploaded' }, data: { updatedAt: new Date() } });
  if (touched.count !== fileIds.length) throw FileErrors.notUsable(param, fileIds.join(', '), 'a file was deleted while this request ran');
  await tx.evidence.createMany({
    data: fileIds.map((fileId) => ({ id: newId('evidence'), businessId: origin.businessId, livemode: origin.livemode, ...owner, fileId, description: input.description ?? null })),
  });
}
