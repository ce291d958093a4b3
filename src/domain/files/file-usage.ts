import type { File } from '../../generated/prisma/client.ts';
import type { FilePurpose } from '../../generated/prisma/enums.ts';
import { OPEN_DISPUTE_STATES } from '../disputes/dispute-state.ts';
import type { Db } from '../shared/context.ts';
import type { FileRecord } from './file-state.ts';
import { FileErrors } from './file.errors.ts';

/**
 * How many open disputes cite the file: as their own evidence, or as evidence of the charge
 * they contest.
 */
export async function withOpenDisputeCitations(db: Db, file: File): Promise<FileRecord> {
  const openDisputeCitations = await db.evidence.count({
    where: {
      fileId: file.id,
      OR: [{ dispute: { state: { in: [...OPEN_DISPUTE_STATES] } } }, { charge: { disputes: { some: { state: { in: [...OPEN_DISPUTE_STATES] } } } } }],
    },
  });
  return { ...file, openDisputeCitations };
}

/**
 * Files an operation is about to cite (evidence, trip photos), checked in the caller's
 * transaction: each must be the caller's and uploaded (else 422 file_not_usable naming
 * `paramOf(fileId)`). Their rows are touched, a compare-and-set on their state, so a delete
 * running at the same moment is refused rather than leaving a citation without its file.
 * With `purpose`, each must have been uploaded for it (an identity document, not a photo).
 * Answers the distinct ids.
 */
export async function claimUploadedFiles(tx: Db, ids: readonly string[], paramOf: (fileId: string) => string, options: { purpose?: FilePurpose } = {}): Promise<string[]> {
  const fileIds = [...new Set(ids)];
  await assertUsableFiles(tx, fileIds, paramOf, options);
  const touched = await tx.file.updateMany({ where: { id: { in: fileIds }, state: 'uploaded' }, data: { updatedAt: new Date() } });
  if (touched.count !== fileIds.length) throw FileErrors.notUsable(paramOf(fileIds[0]), fileIds.join(', '), 'a file was deleted while this request ran');
  return fileIds;
}

/** The checks of claimUploadedFiles without the claim: for refusing early, before a provider is called. */
export async function assertUsableFiles(db: Db, fileIds: readonly string[], paramOf: (fileId: string) => string, options: { purpose?: FilePurpose } = {}): Promise<void> {
  const files = await db.file.findMany({ where: { id: { in: [...fileIds] } }, select: { id: true, state: true, purpose: true } });
  for (const fileId of fileIds) {
    const file = files.find((f) => f.id === fileId);
    if (!file) throw FileErrors.notUsable(paramOf(fileId), fileId, 'no such file');
    if (file.state !== 'uploaded') throw FileErrors.notUsable(paramOf(fileId), fileId, `it is ${file.state}`);
    if (options.purpose && file.purpose !== options.purpose) throw FileErrors.notUsable(paramOf(fileId), fileId, `it was uploaded for ${file.purpose}, not ${options.purpose}`);
  }
}
