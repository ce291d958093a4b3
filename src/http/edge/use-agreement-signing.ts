import type { IncomingMessage } from 'node:http';
import type { TenantDbFactory } from '../../db/tenant-db.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { signingLinkPath, type SigningLinkSigner } from '../../domain/agreements/agreement-links.ts';
import { readSigningLink, signThroughLink, type SigningLinkDeps } from '../../domain/agreements/signing-link.ts';
import { fileAccess, type FileLinkSigner } from '../../domain/files/file-links.ts';
import type { FileStorage } from '../../domain/files/file-storage.ts';
import { EdgeErrors } from '../edge.errors.ts';
import { jsonResponse } from '../error-envelope.ts';
import { inputProblem } from '../input-safety.ts';
import { readBoundedBytes } from './use-body.ts';
import { refusing, type EdgePlugin } from './context.ts';

const LINK = /^\/v1\/agreements\/(agr_[0-9a-z]{1,60})\/sign$/;

/** The link is a credential: answers are never cached, and the page never tells another site where it was. */
const PRIVATE = { 'cache-control': 'private, no-store', 'referrer-policy': 'no-referrer' };

/** The JSON object a signature is sent as. */
function parseBody(bytes: Buffer): unknown {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw EdgeErrors.invalidJson();
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw EdgeErrors.invalidJson('The request body must be a JSON object.');
  const problem = inputProblem(body);
  if (problem) throw problem;
  return body;
}

/**
 * The customer's signing link (GET and POST /v1/agreements/{id}/sign?version&expires&signature):
 * no API key, the link's signature is the authorization, as with the file links. GET answers
 * the agreement's summary and a 5-minute link to its PDF; POST (`signer_name`, `accept: true`)
 * signs it, recording the connection's address and the user agent.
 */
export function useAgreementSigning(deps: {
  prisma: PrismaClient;
  tenantDb: TenantDbFactory;
  signer: SigningLinkSigner;
  files: { storage: FileStorage; signer: FileLinkSigner; publicUrl: string | undefined };
  bodyLimitBytes: number;
  now: () => Date;
}): EdgePlugin {
  const serve = refusing(async ({ url, request, serverContext }) => {
    const [, agreementId] = LINK.exec(url.pathname)!;
    const domain: SigningLinkDeps = {
      prisma: deps.prisma,
      tenantDb: deps.tenantDb,
      signer: deps.signer,
      files: fileAccess(deps.files.storage, deps.files.signer, () => deps.files.publicUrl ?? url.origin),
      now: deps.now,
    };
    if (request.method === 'GET' || request.method === 'HEAD') return jsonResponse(200, await readSigningLink(domain, agreementId, url.searchParams), PRIVATE);
    if (request.method !== 'POST') {
      serverContext.headers.Allow = 'GET, POST';
      throw EdgeErrors.methodNotAllowed(`${signingLinkPath(agreementId)} takes GET and POST only.`);
    }
    const body = parseBody(await readBoundedBytes(request, deps.bodyLimitBytes));
    const socket = (serverContext as { req?: IncomingMessage }).req?.socket;
    const signed = await signThroughLink(domain, agreementId, url.searchParams, body, {
      ip: socket?.remoteAddress ?? null,
      userAgent: request.headers.get('user-agent'),
      requestId: serverContext.requestId,
    });
    return jsonResponse(200, signed, PRIVATE);
  });
  return {
    // Every other request passes at once, without a promise.
    onRequest: (payload) => (payload.url.pathname.startsWith('/v1/agreements/') && LINK.test(payload.url.pathname) ? serve(payload) : undefined),
  };
}
