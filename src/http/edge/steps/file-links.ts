import { fileLinkPath, type FileLinkAction, type FileLinkSigner } from '../../../domain/files/file-links.ts';
import { FileErrors } from '../../../domain/files/file.errors.ts';
import { presentFile } from '../../../domain/files/file.fields.ts';
import { linkOwner, readDownload, receiveUpload, type FileTransferDeps } from '../../../domain/files/file-transfer.ts';
import { MAX_FILE_BYTES } from '../../../domain/files/file-type.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { jsonAnswer, type EdgeStep } from '../runner.ts';

const LINK = /^\/v1\/files\/(file_[0-9a-z]{1,60})\/(upload|download)$/;
export const isFileLink = (pathname: string) => pathname.startsWith('/v1/files/') && LINK.test(pathname);
const METHOD: Record<FileLinkAction, string> = { upload: 'PUT', download: 'GET' };

/**
 * The signed file links (PUT /v1/files/{id}/upload, GET /v1/files/{id}/download): no API key,
 * the link's signature is the authorization, as with a bucket's presigned URLs. An upload is
 * at most 10 MiB; a download is served as an attachment that browsers never sniff.
 */
export function fileLinksStep(deps: FileTransferDeps & { signer: FileLinkSigner }): EdgeStep {
  return {
    name: 'file-links',
    run(ctx) {
      const { request } = ctx;
      if (!isFileLink(request.pathname)) return;
      const [, fileId, action] = LINK.exec(request.pathname) as unknown as [string, string, FileLinkAction];
      ctx.template = `/v1/files/{id}/${action}`;
      if (request.method !== METHOD[action] && !(action === 'download' && request.method === 'HEAD')) {
        ctx.headers.Allow = METHOD[action];
        throw EdgeErrors.methodNotAllowed(`${fileLinkPath(fileId, action)} takes ${METHOD[action]} only.`);
      }
      return (async () => {
        // No signature can be ours for a file that does not exist: that is as invalid as a forged one.
        const owner = await linkOwner(deps, fileId);
        const verdict = owner ? deps.signer.verify(owner, fileId, action, request.searchParams, owner.now) : 'invalid';
        if (verdict !== 'ok') throw FileErrors.linkInvalid(verdict);
        if (action === 'upload') {
          const bytes = await request.bytes(MAX_FILE_BYTES);
          ctx.answer = jsonAnswer(200, presentFile(await receiveUpload(deps, fileId, bytes, ctx.requestId)));
          return;
        }
        const { file, bytes } = await readDownload(deps, fileId);
        ctx.answer = {
          status: 200,
          headers: {
            'content-type': file.contentType,
            'content-length': String(bytes.length),
            'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
            'x-content-type-options': 'nosniff',
            'cache-control': 'private, no-store',
          },
          body: request.method === 'HEAD' ? null : new Uint8Array(bytes),
        };
      })();
    },
  };
}
