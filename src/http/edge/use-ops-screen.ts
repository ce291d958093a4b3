import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { assertKeyEnvironment } from '../../domain/access/permissions.ts';
import { OpsErrors } from '../../ops/ops.errors.ts';
import { CSRF_HEADER, csrfTokenMatches, csrfTokenOf, endSession, openSession, redeemSignInLink, SESSION_COOKIE, SESSION_TTL_MS, sessionTokenOf } from '../../ops/sessions.ts';
import { projectRoot } from '../../project-root.ts';
import { EdgeErrors } from '../edge.errors.ts';
import { jsonResponse } from '../error-envelope.ts';
import { jsonObjectBody } from '../input-safety.ts';
import { readBounded } from './use-body.ts';
import { refusing, type EdgePlugin } from './context.ts';

/** Where `node scripts/build.mjs` puts the ops screen's page (vite's output of ops/). */
export const OPS_DIST = path.join(projectRoot, 'dist', 'ops');
const SESSION_PATH = '/ops/session';
const ASSET = /^\/ops\/assets\/([A-Za-z0-9_-][A-Za-z0-9._-]*)$/;
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.map': 'application/json' };

/** The page may load and connect to this service only; it is never framed. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export interface OpsScreenDeps {
  prisma: PrismaClient;
  now(): Date;
  bodyLimitBytes: number;
  /** The service's public URL when configured (an https one makes the cookie Secure). */
  publicUrl: string | undefined;
  hostEnvironment(hostname: string): 'live' | 'test' | null;
  /** The built page (default dist/ops). */
  distDir?: string;
}

const isSafeMethod = (method: string) => method === 'GET' || method === 'HEAD' || method === 'OPTIONS';

/** The Origin header names this very service (its host and port; a TLS-terminating proxy may change the scheme). */
export function sameOrigin(origin: string | null | undefined, host: string | null | undefined): boolean {
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * Requests that carry no Authorization header but the ops session cookie act as the session's
 * team member, through the rest of the pipeline (rate limits, access, audit) like a key bound
 * to that member. A page of another origin may never use the cookie (a same-site page on
 * another port included: SameSite does not tell ports apart), and every state-changing request
 * must send the session's CSRF token in X-CSRF-Token. Runs just before usePrincipal, which
 * leaves a caller admitted here alone.
 */
export function useOpsSession(deps: Pick<OpsScreenDeps, 'prisma' | 'hostEnvironment'>): EdgePlugin {
  const admit = refusing(async ({ request, url, serverContext }) => {
    const token = sessionTokenOf(request.headers.get('cookie'))!;
    checkCookieRequest(request);
    if (!isSafeMethod(request.method) && !csrfTokenMatches(token, request.headers.get(CSRF_HEADER))) throw OpsErrors.csrfTokenInvalid();
    const { principal } = await openSession(deps.prisma, token);
    assertKeyEnvironment(principal, deps.hostEnvironment(url.hostname));
    serverContext.principal = principal;
  });
  return {
    onRequest: (payload) => {
      if (payload.serverContext.kind === 'graphiql' || payload.request.headers.has('authorization')) return;
      if (sessionTokenOf(payload.request.headers.get('cookie')) === null) return;
      return admit(payload);
    },
  };
}

/** A cookie-authenticated request from a page of another origin is refused. */
function checkCookieRequest(request: Request): void {
  const origin = request.headers.get('origin');
  if (origin !== null && !sameOrigin(origin, request.headers.get('host'))) throw OpsErrors.originNotAllowed(origin);
}

/**
 * The ops screen: its page at /ops (any path under it, so the sign-in link's /ops/sign-in
 * too), its bundled assets, and /ops/session: GET the signed-in member and the CSRF token,
 * POST a sign-in link's token to begin a session (the cookie), DELETE to sign out.
 */
export function useOpsScreen(deps: OpsScreenDeps): EdgePlugin {
  const dist = deps.distDir ?? OPS_DIST;

  const cookie = (request: Request, value: string, maxAgeSeconds: number) => {
    const secure = new URL(request.url).protocol === 'https:' || (deps.publicUrl ?? '').startsWith('https:');
    return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  };

  const described = async (token: string) => {
    const { principal, session, member, businessName } = await openSession(deps.prisma, token, deps.now());
    return {
      object: 'ops_session',
      livemode: principal.livemode,
      business: { id: principal.businessId, name: businessName },
      member: { id: member.id, email: member.email, name: member.name, role: member.role },
      permissions: principal.permissions === 'all' ? 'all' : [...principal.permissions].sort(),
      csrf_token: csrfTokenOf(token),
      expires_at: session.expiresAt.toISOString(),
    };
  };

  const session = refusing(async ({ request, serverContext }) => {
    const method = request.method.toUpperCase();
    const token = sessionTokenOf(request.headers.get('cookie'));
    if (method === 'GET') {
      checkCookieRequest(request);
      return jsonResponse(200, await described(token ?? ''), { 'cache-control': 'no-store' });
    }
    // Beginning or ending a session: only from this service's own page.
    const origin = request.headers.get('origin');
    if (!sameOrigin(origin, request.headers.get('host'))) throw OpsErrors.originNotAllowed(origin ?? '(no Origin header)');
    if (method === 'POST') {
      const body = jsonObjectBody(await readBounded(request, deps.bodyLimitBytes));
      const started = await redeemSignInLink(deps.prisma, body.token, deps.now());
      // A session this browser held before ends: one cookie, one session.
      if (token) await endSession(deps.prisma, token, deps.now());
      return jsonResponse(201, await described(started.token), { 'set-cookie': cookie(request, started.token, Math.floor(SESSION_TTL_MS / 1000)), 'cache-control': 'no-store' });
    }
    if (method === 'DELETE') {
      if (!token) throw OpsErrors.sessionRequired();
      if (!csrfTokenMatches(token, request.headers.get(CSRF_HEADER))) throw OpsErrors.csrfTokenInvalid();
      await openSession(deps.prisma, token, deps.now());
      await endSession(deps.prisma, token, deps.now());
      return jsonResponse(200, { object: 'ops_session', signed_out: true }, { 'set-cookie': cookie(request, '', 0) });
    }
    serverContext.headers.Allow = 'GET, POST, DELETE';
    throw EdgeErrors.methodNotAllowed(`${method} is not allowed on ${SESSION_PATH}; use GET, POST or DELETE.`);
  });

  const page = refusing(async ({ request, url, serverContext }) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      serverContext.headers.Allow = 'GET';
      throw EdgeErrors.methodNotAllowed(`${request.method} is not allowed on ${url.pathname}; the ops screen's pages are read with GET.`);
    }
    const asset = ASSET.exec(url.pathname);
    if (asset) {
      const bytes = await readFile(path.join(dist, 'assets', asset[1])).catch(() => null);
      if (!bytes) throw EdgeErrors.routeNotFound(request.method, url.pathname);
      // Names carry a hash of their content: they never change.
      return new Response(new Uint8Array(bytes), { headers: { 'content-type': TYPES[path.extname(asset[1])] ?? 'application/octet-stream', 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' } });
    }
    const html = await readFile(path.join(dist, 'index.html'), 'utf8').catch(() => null);
    if (html === null) throw OpsErrors.screenNotBuilt();
    return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...PAGE_HEADERS } });
  });

  return {
    // Every other request passes at once, without a promise.
    onRequest: (payload) => {
      const p = payload.url.pathname;
      if (p !== '/ops' && !p.startsWith('/ops/')) return;
      return p === SESSION_PATH ? session(payload) : page(payload);
    },
  };
}
