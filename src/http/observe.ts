import type { IncomingMessage, ServerResponse } from 'node:http';
import { log } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { EdgeContext } from './edge/runner.ts';
import type { RequestFrame } from './transports/yoga.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The path template a request is counted and logged under: the one the edge's step that took
 * its path named (a REST route's template, the GraphQL endpoint, a link with its id replaced),
 * else `unmatched` (404s), so that no label carries an id or whatever a client made up.
 */
export const routeTemplate = (edge: EdgeContext | undefined): string => edge?.template ?? 'unmatched';

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
    // `on`, not `once`: a response closes once, and a listener left on it goes with it (once's
    // wrapper and its removal cost every request a few allocations).
    res.on('close', () => {
      const ms = performance.now() - started;
      const method = METHODS.has(req.method ?? '') ? req.method! : 'OTHER';
      const status = res.headersSent ? res.statusCode : 499;
      const edge = frame.edge;
      const route = routeTemplate(edge);
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
