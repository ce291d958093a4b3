import type { TenantDbFactory } from '../../../db/tenant-db.ts';
import type { OwnerLookup } from '../../../db/owner-lookup.ts';
import { signingLinkPath, type SigningLinkSigner } from '../../../domain/agreements/agreement-links.ts';
import { readSigningLink, signThroughLink, type SigningLinkDeps, type SigningPage } from '../../../domain/agreements/signing-link.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { fileAccess, type FileLinkSigner } from '../../../domain/files/file-links.ts';
import type { FileStorage } from '../../../domain/files/file-storage.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { checkedObject, jsonObjectBody } from '../../input-safety.ts';
import { jsonAnswer, type EdgeAnswer, type EdgeStep } from '../runner.ts';
import { clientOf } from './client.ts';
import { signingErrorHtml, signingPageHtml, wantsHtml } from './signing-page.ts';

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
async function answer(html: boolean, run: () => Promise<SigningPage>, action: string): Promise<EdgeAnswer> {
  if (!html) return jsonAnswer(200, await run(), PRIVATE);
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
 * client's address (behind a trusted proxy, the forwarded one) and the user agent.
 */
export function agreementSigningStep(deps: {
  owners: OwnerLookup;
  tenantDb: TenantDbFactory;
  signer: SigningLinkSigner;
  files: { storage: FileStorage; signer: FileLinkSigner; publicUrl: string | undefined };
  bodyLimitBytes: number;
  now: () => Date;
}): EdgeStep {
  return {
    name: 'agreement-signing',
    run(ctx) {
      const { request } = ctx;
      if (!request.pathname.startsWith('/v1/agreements/') || !LINK.test(request.pathname)) return;
      const [, agreementId] = LINK.exec(request.pathname)!;
      ctx.template = '/v1/agreements/{id}/sign';
      const domain: SigningLinkDeps = {
        owners: deps.owners,
        tenantDb: deps.tenantDb,
        signer: deps.signer,
        files: (owner) => fileAccess(deps.files.storage, deps.files.signer, () => deps.files.publicUrl ?? request.origin, owner),
        now: deps.now,
      };
      const action = request.pathname + request.search;
      if (request.method === 'GET' || request.method === 'HEAD') {
        return answer(wantsHtml(request), () => readSigningLink(domain, agreementId, request.searchParams), action).then((a) => void (ctx.answer = a));
      }
      if (request.method !== 'POST') {
        ctx.headers.Allow = 'GET, POST';
        throw EdgeErrors.methodNotAllowed(`${signingLinkPath(agreementId)} takes GET and POST only.`);
      }
      const form = (request.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded');
      return answer(form, async () => {
        const body = parseBody(await request.bytes(deps.bodyLimitBytes), form);
        return signThroughLink(domain, agreementId, request.searchParams, body, {
          ip: clientOf(ctx).address,
          userAgent: request.header('user-agent'),
          requestId: ctx.requestId,
        });
      }, action).then((a) => void (ctx.answer = a));
    },
  };
}
