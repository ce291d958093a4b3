import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FileStorage } from './file-storage.ts';

export type FileLinkAction = 'upload' | 'download';

/** How long links live (the contract's "Trip"). */
export const UPLOAD_LINK_MINUTES = 15;
export const DOWNLOAD_LINK_MINUTES = 5;

/** The path of a file's upload (PUT) or download (GET) link, before its signature. */
export const fileLinkPath = (fileId: string, action: FileLinkAction) => `/v1/files/${fileId}/${action}`;

/** Whose file a link is for: the signature names the business and the environment too. */
export interface FileOwner {
  businessId: string;
  livemode: boolean;
}

/**
 * Signed links to a file's bytes, like a bucket's presigned URLs: whoever holds the link may
 * upload (once, before it expires) or download (for five minutes), and nothing else. The
 * signature is an HMAC of the action, the file's business and environment, the file and the
 * expiry under this installation's secret, shared by all its processes (PlatformSecret): a
 * link altered in any part, or moved to another business's or environment's file, is refused.
 */
export function fileLinkSigner(secret: string) {
  const signatureOf = (owner: FileOwner, fileId: string, action: FileLinkAction, expires: number) =>
    createHmac('sha256', secret).update(`${action}\n${owner.businessId}\n${owner.livemode ? 'live' : 'test'}\n${fileId}\n${expires}`).digest('base64url');
  return {
    /** `?expires=<unix seconds>&signature=...` for the link. */
    query(owner: FileOwner, fileId: string, action: FileLinkAction, expiresAt: Date): string {
      const expires = Math.floor(expiresAt.getTime() / 1000);
      return `expires=${expires}&signature=${signatureOf(owner, fileId, action, expires)}`;
    },
    /** Whether a link's query is ours for this file of this owner and still valid at `now` (the owner's clock): 'ok', 'expired' or 'invalid'. */
    verify(owner: FileOwner, fileId: string, action: FileLinkAction, params: URLSearchParams, now: Date): 'ok' | 'expired' | 'invalid' {
      const expires = Number(params.get('expires'));
      const given = Buffer.from(params.get('signature') ?? '');
      if (!Number.isSafeInteger(expires)) return 'invalid';
      const expected = Buffer.from(signatureOf(owner, fileId, action, expires));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
      return expires * 1000 < now.getTime() ? 'expired' : 'ok';
    },
  };
}

export type FileLinkSigner = ReturnType<typeof fileLinkSigner>;

/** What operations need of files: where bytes live and how to hand out links. */
export interface FileAccess {
  storage: FileStorage;
  /** An absolute link to upload or download the caller's file's bytes, valid until `expiresAt`. */
  link(fileId: string, action: FileLinkAction, expiresAt: Date): string;
}

/** Links for the caller's own files (`owner`); `baseUrl` is asked only when a link is made (most requests make none). */
export function fileAccess(storage: FileStorage, signer: FileLinkSigner, baseUrl: () => string, owner: FileOwner): FileAccess {
  return {
    storage,
    link: (fileId, action, expiresAt) => `${baseUrl()}${fileLinkPath(fileId, action)}?${signer.query(owner, fileId, action, expiresAt)}`,
  };
}

/**
 * A download link for an uploaded file (null otherwise), valid DOWNLOAD_LINK_MINUTES from the
 * start of this second. Identity documents get none here: their bytes are reached only through
 * the identity verification's media (permission identity:read), never from the file.
 */
export function downloadLink(files: FileAccess, file: { id: string; state: string; purpose: string }, now: Date): { url: string; expiresAt: Date } | null {
  if (file.purpose === 'identity_document') return null;
  return signedDownload(files, file, now);
}

/** A download link for an uploaded file of any purpose (null otherwise): the identity media's, after their own access check. */
export function signedDownload(files: FileAccess, file: { id: string; state: string }, now: Date): { url: string; expiresAt: Date } | null {
  if (file.state !== 'uploaded') return null;
  const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + DOWNLOAD_LINK_MINUTES * 60_000);
  return { url: files.link(file.id, 'download', expiresAt), expiresAt };
}

/**
 * Where a file's bytes are kept: the service's own key, never the uploader's name. The hash
 * is part of it, so two uploads racing for one file never overwrite each other's bytes.
 */
export const storageKey = (file: { businessId: string; livemode: boolean; id: string; sha256: string | null }) =>
  `${file.businessId}/${file.livemode ? 'live' : 'test'}/${file.id}/${file.sha256 ?? 'none'}`;
