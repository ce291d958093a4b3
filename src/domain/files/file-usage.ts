import type { File } from '../../generated/prisma/client.ts';
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
 * Answers the distinct ids.
 */
export async function claimUploadedFiles(tx: Db, ids: readonly string[], paramOf: (fileId: string) => string): Promise<string[]> {
  const fileIds = [...new Set(ids)];
  const files = await tx.file.findMany({ where: { id: { in: fileIds } }, select: { id: true, state: true } });
  for (const fileId of fileIds) {
    const file = files.find((f) => f.id === fileId);
    if (!file) throw FileErrors.notUsable(paramOf(fileId), fileId, 'no such file');
    if (file.state !== 'uploaded') throw FileErrors.notUsable(paramOf(fileId), fileId, `it is ${file.state}`);
  }
  const touched = await tx.file.updateMany({ where: { id: { in: fileIds }, state: 'uploaded' }, data: { updatedAt: new Date() } });
  if (touched.count !== fileIds.length) throw FileErrors.notUsable(paramOf(fileIds[0]), fileIds.join(', '), 'a file was deleted while this request ran');
  return fileIds;
}
