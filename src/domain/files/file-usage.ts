import type { File } from '../../generated/prisma/client.ts';
import type { FilePurpose } from '../../generated/prisma/enums.ts';
import { OPEN_DISPUTE_STATES } from '../disputes/dispute-state.ts';
import type { Db } from '../shared/context.ts';
import type { FileRecord, FileUse } from './file-state.ts';
import { FileErrors } from './file.errors.ts';

/** Charge states in which its evidence still matters: not yet collected or waived, or under dispute. */
const OPEN_CHARGE_STATES = ['pending', 'processing', 'failed', 'disputed'] as const;
/** Agreement states whose document is the agreement (pending signature, or signed); a voided one no longer is. */
const LIVE_AGREEMENT_STATES = ['draft', 'sent', 'signed'] as const;
/** A booking in these states no longer uses its identity verification: its documents may then be erased. */
const OVER_BOOKING_STATES = ['completed', 'canceled', 'refunded'] as const;
/** How many users of each kind a refusal names; the first few are enough to find the rest. */
const NAMED = 5;

/**
 * What still uses the file, in words a developer reads ("agreement agr_... of booking bk_..."):
 * the document of an agreement pending signature or signed, a document of an identity
 * verification (not canceled) while its booking is not over (a business erases identity
 * documents once the rental is done), a document of an insurance submission, and evidence
 * that is still open (of an open dispute, or of a charge not collected or waived). Empty when nothing does.
 */
export async function fileUsers(db: Db, fileId: string): Promise<FileUse[]> {
  const [agreements, verifications, insurance, evidence] = await Promise.all([
    db.agreement.findMany({ where: { fileId, state: { in: [...LIVE_AGREEMENT_STATES] } }, select: { id: true, bookingId: true }, take: NAMED }),
    db.identityVerification.findMany({
      where: { documents: { array_contains: [{ file_id: fileId }] }, state: { not: 'canceled' }, booking: { state: { notIn: [...OVER_BOOKING_STATES] } } },
      select: { id: true, bookingId: true },
      take: NAMED,
    }),
    db.insurance.findMany({ where: { documentFileIds: { has: fileId } }, select: { id: true, bookingId: true }, take: NAMED }),
    db.evidence.findMany({
      where: {
        fileId,
        OR: [
          { dispute: { state: { in: [...OPEN_DISPUTE_STATES] } } },
          { charge: { state: { in: [...OPEN_CHARGE_STATES] } } },
          { charge: { disputes: { some: { state: { in: [...OPEN_DISPUTE_STATES] } } } } },
        ],
      },
      select: { dispute: { select: { id: true, chargeId: true } }, charge: { select: { id: true, bookingId: true } } },
      take: NAMED,
    }),
  ]);
  return [
    ...agreements.map((a) => ({ id: a.id, words: `agreement ${a.id} of booking ${a.bookingId}` })),
    ...verifications.map((v) => ({ id: v.id, words: `identity verification ${v.id} of booking ${v.bookingId}` })),
    ...insurance.map((i) => ({ id: i.id, words: `insurance submission ${i.id} of booking ${i.bookingId}` })),
    ...evidence.map((e) =>
      e.dispute ? { id: e.dispute.id, words: `evidence of dispute ${e.dispute.id} of charge ${e.dispute.chargeId}` } : { id: e.charge!.id, words: `evidence of charge ${e.charge!.id} of booking ${e.charge!.bookingId}` },
    ),
  ];
}

/** The file row with what uses it (the delete guard reads it). */
export async function withUsers(db: Db, file: File): Promise<FileRecord> {
  return { ...file, usedBy: await fileUsers(db, file.id) };
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
