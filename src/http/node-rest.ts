import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ServerContext } from './edge/context.ts';
import { checkRouteAccess } from './edge/use-operation-access.ts';
import { admitRequest, type PrincipalDeps } from './edge/use-principal.ts';
import { countRequest, type RateLimitDeps } from './edge/use-rate-limit.ts';
import { enterRoute, type RouteLookup } from './edge/use-routing.ts';
import { releaseHeld } from './edge/use-request-frame.ts';
import { asDomainError, envelope } from './error-envelope.ts';

export interface NodeRestDeps {
  lookup: RouteLookup;
  /** A request one of the pipeline's steps before routing answers (health, signed file links, processor events, OpenAPI). */
  answeredBeforeRouting(method: string, pathname: string): boolean;
  principal: PrincipalDeps;
  rateLimit: RateLimitDeps;
}

/**
 * A request target the WHATWG URL parser keeps exactly as written (no character it would
 * percent-encode, no backslash), so its path and query are what yoga's parsed URL would give.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~%!$&'()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~%!$&()*+,;=:@/?[\]]*)?$/;
/** A `.` or `..` segment, plain or percent-encoded: the parser resolves those. */
const DOT_SEGMENT = /\/(?:\.|%2e)(?:\.|%2e)?(?:[/?]|$)/i;
/** A host name the parser keeps as written but for case (its last label not a number), or a dotted IPv4 address; an optional port. */
const PLAIN_HOST = /^(?:(?:[A-Za-z0-9-]+\.)*[A-Za-z-][A-Za-z0-9-]*\.?|(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))(?::(\d{1,5}))?$/;

function plainHostname(host: string | undefined): string | null {
  if (host === undefined) return null;
  const m = PLAIN_HOST.exec(host);
  if (!m || (m[1] !== undefined && Number(m[1]) > 65_535)) return null;
  return (m[1] === undefined ? host : host.slice(0, host.length - m[1].length - 1)).toLowerCase();
}

/**
 * GET requests of the JSON routes, served from Node's request and response without the
 * Fetch-API adaptation of the pipeline (about half of a read's CPU). The edge's rules are the
 * pipeline's own step functions, called in the pipeline's order; a GET reads no body, holds
 * no Idempotency-Key (POST only) and writes no audit record (reads). Everything else (other
 * methods, CORS requests, targets the URL parser would rewrite, a missing Host) takes the
 * pipeline: `serve` returns false before it has done anything.
 */
export function nodeRestPath(deps: NodeRestDeps) {
  return function serve(req: IncomingMessage, res: ServerResponse, edge: ServerContext): boolean {
    // CORS (an Origin header) is answered by yoga's own plugin, in the pipeline.
    if (req.method !== 'GET' || req.headers.origin !== undefined) return false;
    // The ops screen's session cookie (no key): the pipeline admits it (use-ops-screen.ts).
    if (req.headers.authorization === undefined && req.headers.cookie?.includes('ops_session=')) return false;
    const target = req.url ?? '';
    if (!PLAIN_TARGET.test(target) || DOT_SEGMENT.test(target)) return false;
    const hostname = plainHostname(req.headers.host);
    if (hostname === null) return false;
    const q = target.indexOf('?');
    const pathname = q < 0 ? target : target.slice(0, q);
    if (deps.answeredBeforeRouting('GET', pathname)) return false;
    const match = deps.lookup('GET', pathname);
    if (match.kind !== 'found' || !match.route.answer) return false;
    const answer = match.route.answer;
    enterRoute(match.route, 'GET', edge);
    void run(req, res, edge, async () => {
      const admitted = admitRequest(deps.principal, req.headers.authorization, hostname, edge);
      if (admitted) await admitted;
      const counted = countRequest(deps.rateLimit, edge);
      if (counted) await counted;
      checkRouteAccess(edge);
      // The URL links are made from (the pipeline's request.url), built only if one is made.
      const request = { get url() { return `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${req.headers.host}${target}`; } };
      return answer({ pathname, searchParams: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)), request }, '', edge);
    });
    return true;
  };
}

/** Write the answer as the pipeline writes it: the same status, headers (names spelled alike) and bytes. */
async function run(req: IncomingMessage, res: ServerResponse, edge: ServerContext, steps: () => Promise<{ status: number; body: unknown }>): Promise<void> {
  let status: number;
  let text: string;
  let headers: Record<string, string>;
  try {
    const answer = await steps();
    status = answer.status;
    text = JSON.stringify(answer.body);
    headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...edge.headers };
  } catch (err) {
    const refused = envelope(asDomainError(err, edge.requestId), edge.requestId);
    status = refused.status;
    text = JSON.stringify(refused.body);
    // A refusal gets the edge's headers added by the request frame, which the pipeline writes in lower case.
    headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) };
    for (const [name, value] of Object.entries(edge.headers)) headers[name.toLowerCase()] = value;
  }
  const held = releaseHeld(edge);
  if (held) await held;
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, headers);
  res.end(text);
}
