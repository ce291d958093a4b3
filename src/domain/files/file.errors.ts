import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of files and evidence (the contract's "Trip"). */
export const FileErrors = errorCatalogue('file', {
  inUse: {
    type: 'conflict',
    code: 'file_in_use',
    description:
      'The file is still used, so it cannot be deleted: it is the document of an agreement pending signature or signed (void it first), a document of an identity verification (until its booking is completed, canceled or refunded) or of an insurance submission, or evidence of an open dispute or of a charge not yet collected or waived. The message names the users ("used by agreement agr_... of booking bk_..."); `used_by` lists their ids.',
    details: ['used_by'],
    build: (fileId: string, usedBy: readonly { id: string; words: string }[]) => ({
      message: `File ${fileId} cannot be deleted: it is used by ${usedBy.map((u) => u.words).join(', ')}.`,
      details: { used_by: usedBy.map((u) => u.id) },
    }),
  },
  linkInvalid: {
    type: 'authorization_error',
    code: 'file_link_invalid',
    description: "The upload or download link was not signed by this service for this file, or it has expired (upload links live 15 minutes, download links 5). Ask for a new one: POST /v1/files/upload-url, or GET /v1/files/{id}.",
    build: (why: 'expired' | 'invalid') => ({ message: why === 'expired' ? 'This file link has expired; ask for a new one.' : 'This file link is not valid; ask for a new one.' }),
  },
  typeMismatch: {
    type: 'validation_error',
    code: 'file_type_mismatch',
    description: "The uploaded bytes are not what content_type declared (the type is read from the bytes' signature, not the name), or not one of the accepted types. Nothing was stored.",
    build: (declared: string, found: string | null) => ({
      message: `The upload is ${found ?? 'not an accepted type (image/jpeg, image/png, image/webp, image/heic, application/pdf)'}, but ${declared} was declared; nothing was stored.`,
      param: 'content_type',
    }),
  },
  sizeMismatch: {
    type: 'validation_error',
    code: 'file_size_mismatch',
    description: 'The upload is not the size_bytes declared when its link was made. Nothing was stored.',
    build: (declared: number, received: number) => ({ message: `The upload has ${received} bytes, but size_bytes was ${declared}; nothing was stored.`, param: 'size_bytes' }),
  },
  storageUnavailable: {
    type: 'integration_error',
    code: 'file_storage_unavailable',
    description: "The store that keeps files' bytes (the bucket) did not answer, or refused: nothing was stored or changed. Retry; an upload link stays valid until it expires.",
    build: () => ({ message: "The file store is unavailable; nothing was stored or changed. Retry shortly." }),
  },
  notUsable: {
    type: 'validation_error',
    code: 'file_not_usable',
    description: 'Evidence and trip photos must be files of this business and environment that have been uploaded (not pending, expired or deleted).',
    build: (param: string, fileId: string, why: string) => ({ message: `File ${fileId} cannot be used: ${why}.`, param }),
  },
});
