import { createHash } from 'node:crypto';
import type { File } from '../../generated/prisma/client.ts';
import type { OwnerLookup } from '../../db/owner-lookup.ts';
import type { TenantDbFactory } from '../../db/tenant-db.ts';
import type { EventOrigin } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { runAction } from '../shared/lifecycle.ts';
import { storageKey } from './file-links.ts';
import type { FileStorage } from './file-storage.ts';
import { FileErrors } from './file.errors.ts';
import { fileLifecycle, fileMachine } from './file-state.ts';
import { sniffContentType } from './file-type.ts';

export interface FileTransferDeps {
  owners: OwnerLookup;
  tenantDb: TenantDbFactory;
  storage: FileStorage;
  now(): Date;
}

/**
 * Whose file a link names, and that owner's clock (a test file's links live by its business's
 * sandbox clock, as they were issued): null for a file that does not exist.
 */
export async function linkOwner(deps: FileTransferDeps, fileId: string): Promise<{ businessId: string; livemode: boolean; now: Date } | null> {
  const owner = await deps.owners.resolveOwner('file', fileId);
  if (!owner) return null;
  return { businessId: owner.businessId, livemode: owner.livemode, now: new Date(deps.now().getTime() + owner.clockOffsetSeconds * 1000) };
}

/** The file a signed link names, in its own business's scope (the one question asked across businesses is whose file it is). */
async function linkedFile(deps: FileTransferDeps, fileId: string) {
  const owner = await deps.owners.resolveOwner('file', fileId);
  if (!owner) throw CommonErrors.resourceMissing('file', fileId);
  const db = deps.tenantDb({ businessId: owner.businessId, livemode: owner.livemode });
  const file = await db.file.findUniqueOrThrow({ where: { id: fileId } });
  return { db, file };
}

/**
 * The upload a link authorized: the declared size exactly, and the declared type as read from
 * the bytes. The bytes are stored first, under a key of their own hash; the file is marked
 * uploaded only after, by a compare-and-set, so a failure leaves it pending_upload and a
 * second upload racing the first loses cleanly (its bytes are removed).
 */
export async function receiveUpload(deps: FileTransferDeps, fileId: string, bytes: Buffer, requestId: string): Promise<File> {
  const { db, file } = await linkedFile(deps, fileId);
  const record = { ...file, usedBy: [] };
  fileMachine.check(record, 'upload');
  if (bytes.length !== file.sizeBytes) throw FileErrors.sizeMismatch(file.sizeBytes, bytes.length);
  const found = sniffContentType(bytes);
  if (found !== file.contentType) throw FileErrors.typeMismatch(file.contentType, found);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const key = storageKey({ ...file, sha256 });
  await deps.storage.put(key, bytes, file.contentType);
  const origin: EventOrigin = { businessId: file.businessId, livemode: file.livemode, requestId, idempotencyKey: null };
  try {
    return await db.$transaction((tx) => runAction(tx, origin, fileLifecycle, record, 'upload', { sha256, uploadedAt: deps.now() }));
  } catch (err) {
    // Another upload of this file won (or the file was deleted meanwhile): these bytes are nobody's.
    const current = await db.file.findUnique({ where: { id: fileId }, select: { sha256: true } });
    if (current?.sha256 !== sha256) await deps.storage.remove(key);
    throw err;
  }
}

/** The bytes a download link authorized: only of an uploaded file (a deleted one is gone). */
export async function readDownload(deps: FileTransferDeps, fileId: string): Promise<{ file: File; bytes: Buffer }> {
  const { file } = await linkedFile(deps, fileId);
  const bytes = file.state === 'uploaded' ? await deps.storage.get(storageKey(file)) : null;
  if (!bytes) throw CommonErrors.resourceMissing('file', fileId);
  return { file, bytes };
}
