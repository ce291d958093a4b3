import type { File } from '../../generated/prisma/client.ts';
import { OPEN_DISPUTE_STATES } from '../disputes/dispute-state.ts';
import type { Db } from '../shared/context.ts';
import type { FileRecord } from './file-state.ts';

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
