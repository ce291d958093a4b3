import type { IncomingMessage } from 'node:http';
import type { TenantDbFactory } from '../../db/tenant-db.ts';
import type { OwnerLookup } from '../../db/owner-lookup.ts';
import { signingLinkPath, type SigningLinkSigner } from '../../domain/agreements/agreement-links.ts';
import { readSigningLink, signThroughLink, type SigningLinkDeps, type SigningPage } from '../../domain/agreements/signing-link.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { fileAccess, type FileLinkSigner } from '../../domain/files/file-links.ts';
import type { FileStorage } from '../../domain/files/file-storage.ts';
import { EdgeErrors } from '../edge.errors.ts';
import { jsonResponse } from '../error-envelope.ts';
import { checkedObject, jsonObjectBody } from '../input-safety.ts';
import { readBoundedBytes } from './use-body.ts';
import { signingErrorHtml, signingPageHtml, wantsHtml } from './signing-page.ts';
import { refusing, type EdgePlugin } from './context.ts';

const LINK = /^\/v1\/agreements\/(agr_[0-9a-z]{1,60})\/sign$/;

/** The link is a credential: answers are never cached, and the page never tells another site where it was. */
const PRIVATE = { 'cache-control': 'private, no-store', 'referrer-policy': 'no-referrer' };

/** The signature as sent: a JSON object, or a browser's form (from the page the link opens). */
function parseBody(bytes: Buffer, form: boolean): unknown {
  if (!form) return jsonObjectBody(bytes.toString('utf8'));
  const fields = Object.fromEntries(new URLSearchParams(bytes.toString('utf8')));
  return checkedObject({ ...fields, ...('accept' in fields ? { accept: fields.accept === 'true' } : {}) });
}

/** A browser gets the page (or the refusal) as HTML; anyone else JSON or the error envelope. */
async function answer(html: boolean, run: () => Promise<SigningPage>, action: string): Promise<Response> {
  if (!html) return jsonResponse(200, await run(), PRIVATE);
  try {
    return signingPageHtml(await run(), action);
  } catch (err) {
    if (err instanceof DomainError) return signingErrorHtml(err.status, err.message);
    throw err;
  }
}

/**
 * The customer's signing link (GET and POST /v1/agreements/{id}/sign?version&expires&signature):
 * no API key, the link's signature is the authorization, as with the file links. GET answers
 * the agreement's summary and a 5-minute link to its PDF (a page with a form, to a browser);
 * POST (`signer_name`, `accept: true`, as JSON or the page's form) signs it, recording the
 * connection's address and the user agent.
 */
export function useAgreementSigning(deps: {
  owners: OwnerLookup;
  tenantDb: TenantDbFactory;
  signer: SigningLinkSigner;
  files: { storage: FileStorage; signer: FileLinkSigner; publicUrl: string | undefined };
  bodyLimitBytes: number;
  now: () => Date;
}): EdgePlugin {
  const serve = refusing(async ({ url, request, serverContext }) => {
    const [, agreementId] = LINK.exec(url.pathname)!;
    const domain: SigningLinkDeps = {
      owners: deps.owners,
      tenantDb: deps.tenantDb,
      signer: deps.signer,
      files: (owner) => fileAccess(deps.files.storage, deps.files.signer, () => deps.files.publicUrl ?? url.origin, owner),
      now: deps.now,
    };
    const action = url.pathname + url.search;
    if (request.method === 'GET' || request.method === 'HEAD') return answer(wantsHtml(request), () => readSigningLink(domain, agreementId, url.searchParams), action);
    if (request.method !== 'POST') {
      serverContext.headers.Allow = 'GET, POST';
      throw EdgeErrors.methodNotAllowed(`${signingLinkPath(agreementId)} takes GET and POST only.`);
    }
    const form = (request.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded');
    const socket = (serverContext as { req?: IncomingMessage }).req?.socket;
    return answer(form, async () => {
      const body = parseBody(await readBoundedBytes(request, deps.bodyLimitBytes), form);
      return signThroughLink(domain, agreementId, url.searchParams, body, {
        ip: socket?.remoteAddress ?? null,
        userAgent: request.headers.get('user-agent'),
        requestId: serverContext.requestId,
      });
    }, action);
  });
  return {
    // Every other request passes at once, without a promise.
    onRequest: (payload) => (payload.url.pathname.startsWith('/v1/agreements/') && LINK.test(payload.url.pathname) ? serve(payload) : undefined),
  };
}
