import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PrismaClient } from '../../../generated/prisma/client.ts';
import { assertKeyEnvironment } from '../../../domain/access/permissions.ts';
import { OpsErrors } from '../../../ops/ops.errors.ts';
import { CSRF_HEADER, csrfTokenMatches, csrfTokenOf, endSession, openSession, redeemSignInLink, SESSION_COOKIE, SESSION_TTL_MS, sessionTokenOf } from '../../../ops/sessions.ts';
import { projectRoot } from '../../../project-root.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { jsonObjectBody } from '../../input-safety.ts';
import { jsonAnswer, type EdgeContext, type EdgeStep } from '../runner.ts';

/** Where `node scripts/build.mjs` puts the ops screen's page (vite's output of ops/). */
export const OPS_DIST = path.join(projectRoot, 'dist', 'ops');
const SESSION_PATH = '/ops/session';
const ASSET = /^\/ops\/assets\/([A-Za-z0-9_-][A-Za-z0-9._-]*)$/;
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.map': 'application/json' };

/** The page may load and connect to this service only; it is never framed. */
export const PAGE_HEADERS = {
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
 * The one rule for a request that carries the ops session's cookie: it comes from a page of
 * this very service (its Origin header: a browser sends one on every cross-origin request and
 * on every WebSocket, so there it is required, as it is to begin or end a session), and it
 * carries the session's CSRF token (X-CSRF-Token; a WebSocket's `csrfToken` connection
 * parameter) when it may change state: any method but GET, HEAD and OPTIONS, and a WebSocket.
 * SameSite=Strict does not tell ports apart, hence the Origin check even on reads.
 */
export function checkCookieRequest(ctx: EdgeContext, token: string | null, options: { originRequired?: boolean } = {}): void {
  const websocket = ctx.transport === 'websocket';
  const origin = ctx.request.header('origin');
  const required = options.originRequired || websocket;
  if (origin !== null ? !sameOrigin(origin, ctx.request.header('host')) : required) throw OpsErrors.originNotAllowed(origin ?? '(no Origin header)');
  if (token !== null && (websocket || !isSafeMethod(ctx.request.method)) && !csrfTokenMatches(token, ctx.request.header(CSRF_HEADER))) throw OpsErrors.csrfTokenInvalid();
}

/**
 * A request with no Authorization header but the ops session's cookie acts as the session's
 * team member, through every later step (rate limits, access, audit), as a key bound to that
 * member does. Runs just before the principal step, which leaves a caller admitted here alone.
 */
export function opsSessionStep(deps: Pick<OpsScreenDeps, 'prisma' | 'hostEnvironment'>): EdgeStep {
  return {
    name: 'ops-session',
    run(ctx) {
      if (ctx.kind === 'graphiql' || ctx.request.header('authorization') !== null) return;
      const token = sessionTokenOf(ctx.request.header('cookie'));
      if (token === null) return;
      checkCookieRequest(ctx, token);
      return openSession(deps.prisma, token).then(({ principal }) => {
        assertKeyEnvironment(principal, deps.hostEnvironment(ctx.request.hostname));
        ctx.principal = principal;
      });
    },
  };
}

/**
 * The ops screen: its page at /ops (any path under it, so the sign-in link's /ops/sign-in
 * too), its bundled assets, and /ops/session: GET the signed-in member and the CSRF token,
 * POST a sign-in link's token to begin a session (the cookie), DELETE to sign out.
 */
export function opsScreenStep(deps: OpsScreenDeps): EdgeStep {
  const dist = deps.distDir ?? OPS_DIST;

  const cookie = (ctx: EdgeContext, value: string, maxAgeSeconds: number) => {
    const secure = ctx.request.url.startsWith('https:') || (deps.publicUrl ?? '').startsWith('https:');
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

  async function session(ctx: EdgeContext) {
    const method = ctx.request.method;
    const token = sessionTokenOf(ctx.request.header('cookie'));
    if (method === 'GET') {
      checkCookieRequest(ctx, token);
      return jsonAnswer(200, await described(token ?? ''), { 'cache-control': 'no-store' });
    }
    if (method === 'POST') {
      // Beginning a session: only from this service's own page.
      checkCookieRequest(ctx, null, { originRequired: true });
      const body = jsonObjectBody((await ctx.request.bytes(deps.bodyLimitBytes)).toString('utf8'));
      const started = await redeemSignInLink(deps.prisma, body.token, deps.now());
      // A session this browser held before ends: one cookie, one session.
      if (token) await endSession(deps.prisma, token, deps.now());
      return jsonAnswer(201, await described(started.token), { 'set-cookie': cookie(ctx, started.token, Math.floor(SESSION_TTL_MS / 1000)), 'cache-control': 'no-store' });
    }
    if (method === 'DELETE') {
      // Ending it: from this service's own page, with the session's CSRF token.
      if (!token) {
        checkCookieRequest(ctx, null, { originRequired: true });
        throw OpsErrors.sessionRequired();
      }
      checkCookieRequest(ctx, token, { originRequired: true });
      await openSession(deps.prisma, token, deps.now());
      await endSession(deps.prisma, token, deps.now());
      return jsonAnswer(200, { object: 'ops_session', signed_out: true }, { 'set-cookie': cookie(ctx, '', 0) });
    }
    ctx.headers.Allow = 'GET, POST, DELETE';
    throw EdgeErrors.methodNotAllowed(`${method} is not allowed on ${SESSION_PATH}; use GET, POST or DELETE.`);
  }

  async function page(ctx: EdgeContext) {
    const { method, pathname } = ctx.request;
    if (method !== 'GET' && method !== 'HEAD') {
      ctx.headers.Allow = 'GET';
      throw EdgeErrors.methodNotAllowed(`${method} is not allowed on ${pathname}; the ops screen's pages are read with GET.`);
    }
    const asset = ASSET.exec(pathname);
    if (asset) {
      const bytes = await readFile(path.join(dist, 'assets', asset[1])).catch(() => null);
      if (!bytes) throw EdgeErrors.routeNotFound(method, pathname);
      // Names carry a hash of their content: they never change.
      return { status: 200, headers: { 'content-type': TYPES[path.extname(asset[1])] ?? 'application/octet-stream', 'content-length': String(bytes.length), 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' }, body: new Uint8Array(bytes) };
    }
    const html = await readFile(path.join(dist, 'index.html'), 'utf8').catch(() => null);
    if (html === null) throw OpsErrors.screenNotBuilt();
    return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(html)), 'cache-control': 'no-store', ...PAGE_HEADERS }, body: html };
  }

  return {
    name: 'ops-screen',
    run(ctx) {
      const p = ctx.request.pathname;
      if (p !== '/ops' && !p.startsWith('/ops/')) return;
      // Its page under any path, its assets (names carry a content hash), its session.
      ctx.template = p === SESSION_PATH ? SESSION_PATH : p.startsWith('/ops/assets/') ? '/ops/assets' : '/ops';
      return (p === SESSION_PATH ? session(ctx) : page(ctx)).then((answer) => void (ctx.answer = answer));
    },
  };
}
