import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { log } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { ServerContext } from './edge/context.ts';
import { EdgeErrors } from './edge.errors.ts';
import { envelope, internalError } from './error-envelope.ts';
import { MetricsErrors } from './metrics.errors.ts';
import type { DomainError } from '../domain/shared/errors.ts';

export const METRICS_PATH = '/metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Paths answered before routing, named as they are (a bounded set). */
const FIXED = new Set(['/health', '/health/live', '/health/ready', '/v1/openapi.json', '/v1/processor/stripe/webhook', METRICS_PATH, '/graphql']);
/** Links answered before routing, with their id replaced (the edge's own patterns, src/http/edge/). */
const LINKS: [RegExp, string][] = [
  [/^\/v1\/files\/file_[0-9a-z]{1,60}\/upload$/, '/v1/files/{id}/upload'],
  [/^\/v1\/files\/file_[0-9a-z]{1,60}\/download$/, '/v1/files/{id}/download'],
  [/^\/v1\/agreements\/agr_[0-9a-z]{1,60}\/sign$/, '/v1/agreements/{id}/sign'],
  [/^\/v1\/team\/invitations\/inv_[0-9a-z]{1,60}\/accept$/, '/v1/team/invitations/{id}/accept'],
];

/**
 * The path template a request is counted and logged under: its REST route's template, the
 * GraphQL endpoint, a path the edge answers before routing (ids replaced), else `unmatched`
 * (404s), so that no label carries an id or whatever a client made up.
 */
export function routeTemplate(edge: ServerContext, url: string | undefined): string {
  const route = edge.route ?? edge.record?.route;
  if (route) return route.path;
  const q = url?.indexOf('?') ?? -1;
  const pathname = url === undefined ? '' : q < 0 ? url : url.slice(0, q);
  if (FIXED.has(pathname)) return pathname;
  if (pathname === '/docs' || pathname.startsWith('/docs/')) return '/docs';
  // The ops screen: its session, else its page and bundled assets (names carry a content hash).
  if (pathname === '/ops/session') return pathname;
  if (pathname === '/ops' || pathname.startsWith('/ops/')) return pathname.startsWith('/ops/assets/') ? '/ops/assets' : '/ops';
  for (const [pattern, template] of LINKS) if (pattern.test(pathname)) return template;
  return 'unmatched';
}

/**
 * The access log and the request metrics of one HTTP request, whichever path serves it (the
 * JSON GET fast path, the pipeline, /metrics): registered when the request arrives, written
 * when its response closes. One line per request (`msg: "request"`): request id, method,
 * route template, GraphQL operation, status (499: the client left before an answer), duration
 * in ms, and the caller's key id, business id and environment when a key was admitted. Never
 * the key itself, headers or bodies.
 * Cost per request: a `close` listener, a map lookup and two metric updates, one log object
 * serialized into pino's buffer (written to standard output asynchronously).
 */
export function requestObserver(metrics: Metrics) {
  return function observe(req: IncomingMessage, res: ServerResponse, edge: ServerContext): void {
    const started = performance.now();
    res.once('close', () => {
      const ms = performance.now() - started;
      const method = METHODS.has(req.method ?? '') ? req.method! : 'OTHER';
      const status = res.headersSent ? res.statusCode : 499;
      const route = routeTemplate(edge, req.url);
      metrics.request(method, route, status, ms / 1000);
      const level = status >= 500 ? 'error' : 'info';
      if (!log.isLevelEnabled(level)) return;
      const principal = edge.principal ?? edge.record?.principal;
      log[level](
        {
          request_id: edge.requestId,
          method,
          route: `${method} ${route}`,
          operation: edge.record?.operation,
          status,
          duration_ms: Math.round(ms * 100) / 100,
          key_id: principal?.keyId,
          business_id: principal?.businessId,
          livemode: principal?.livemode,
        },
        'request',
      );
    });
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether the caller is this machine, directly (a request that came through a proxy names its client in a forwarding header). */
function loopbackCaller(req: IncomingMessage): boolean {
  const address = req.socket.remoteAddress ?? '';
  const local = address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
  return local && req.headers['x-forwarded-for'] === undefined && req.headers.forwarded === undefined && req.headers['x-real-ip'] === undefined;
}

/**
 * GET /metrics in Prometheus' text format, outside /v1 (no API key reads it: it describes the
 * whole service, every business). With METRICS_TOKEN set, callers present it as a bearer
 * token; without it, only callers on the loopback interface, not through a proxy, may read it.
 */
export function metricsEndpoint(metrics: Metrics, token: string | undefined) {
  const expected = token ? digest(`Bearer ${token}`) : null;
  const refuse = (res: ServerResponse, edge: ServerContext, error: DomainError, extra: Record<string, string> = {}) => {
    const e = envelope(error, edge.requestId);
    const text = JSON.stringify(e.body);
    res.writeHead(e.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...edge.headers, ...extra });
    res.end(text);
  };
  return async function serve(req: IncomingMessage, res: ServerResponse, edge: ServerContext): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, edge, EdgeErrors.methodNotAllowed(`${req.method} is not allowed on ${METRICS_PATH}; use GET.`), { Allow: 'GET, HEAD' });
    if (expected) {
      const given = req.headers.authorization;
      if (!given || !timingSafeEqual(digest(given), expected)) return refuse(res, edge, MetricsErrors.metricsTokenInvalid(), { 'WWW-Authenticate': 'Bearer' });
    } else if (!loopbackCaller(req)) return refuse(res, edge, MetricsErrors.metricsNotLocal());
    let text: string;
    try {
      text = await metrics.registry.metrics();
    } catch (err) {
      log.error({ err }, 'metrics: not collected');
      return refuse(res, edge, internalError());
    }
    res.writeHead(200, { 'content-type': metrics.registry.contentType, 'content-length': String(Buffer.byteLength(text)), ...edge.headers });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
}
