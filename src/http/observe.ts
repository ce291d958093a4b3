import type { IncomingMessage, ServerResponse } from 'node:http';
import { log } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { EdgeContext } from './edge/runner.ts';
import { HEALTH_PATHS } from './edge/steps/health.ts';
import { METRICS_PATH } from './edge/steps/metrics.ts';
import { OPENAPI_PATH } from './edge/steps/openapi.ts';
import { STRIPE_EVENTS_PATH } from './edge/steps/processor-events.ts';
import { GRAPHQL_PATH } from './edge/steps.ts';
import type { RequestFrame } from './transports/yoga.ts';


const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Paths answered before routing, named as they are (a bounded set). */
const FIXED = new Set([...HEALTH_PATHS, OPENAPI_PATH, STRIPE_EVENTS_PATH, METRICS_PATH, GRAPHQL_PATH]);
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
export function routeTemplate(edge: EdgeContext | undefined, url: string | undefined): string {
  const route = edge?.route;
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
 * Node server's own path, or yoga's): registered when the request arrives, written
 * when its response closes. One line per request (`msg: "request"`): request id, method,
 * route template, GraphQL operation, status (499: the client left before an answer), duration
 * in ms, and the caller's key id, business id and environment when a key was admitted. Never
 * the key itself, headers or bodies.
 * Cost per request: a `close` listener, a map lookup and two metric updates, one log object
 * serialized into pino's buffer (written to standard output asynchronously).
 */
export function requestObserver(metrics: Metrics) {
  return function observe(req: IncomingMessage, res: ServerResponse, frame: RequestFrame): void {
    const started = performance.now();
    res.once('close', () => {
      const ms = performance.now() - started;
      const method = METHODS.has(req.method ?? '') ? req.method! : 'OTHER';
      const status = res.headersSent ? res.statusCode : 499;
      const edge = frame.edge;
      const route = routeTemplate(edge, req.url);
      metrics.request(method, route, status, ms / 1000);
      const level = status >= 500 ? 'error' : 'info';
      if (!log.isLevelEnabled(level)) return;
      const principal = edge?.principal;
      log[level](
        {
          request_id: frame.requestId,
          method,
          route: `${method} ${route}`,
          operation: edge?.operationLabel,
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
