import { createHash, timingSafeEqual } from 'node:crypto';
import type { Metrics } from '../../../metrics.ts';
import { log } from '../../../log.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { internalError } from '../../error-envelope.ts';
import { MetricsErrors } from '../../metrics.errors.ts';
import { isLoopback } from '../../client-address.ts';
import type { EdgeContext, EdgeStep } from '../runner.ts';
import { clientOf } from './client.ts';

export const METRICS_PATH = '/metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether the caller is this machine: its client address (src/http/edge/steps/client.ts) is a
 * loopback one, and no forwarding header says otherwise. A proxy on this machine connects from
 * loopback on behalf of others, so a forwarding header the service did not resolve (Forwarded,
 * X-Real-IP, or X-Forwarded-For from a peer TRUST_PROXY does not name) refuses the request; an
 * X-Forwarded-For read through trusted proxies has already given the real client's address.
 */
function loopbackCaller(ctx: EdgeContext): boolean {
  const { request } = ctx;
  const client = clientOf(ctx);
  const unresolved = request.header('forwarded') !== null || request.header('x-real-ip') !== null || (request.header('x-forwarded-for') !== null && !client.throughTrustedProxy);
  return isLoopback(client.address) && !unresolved;
}

/**
 * GET /metrics in Prometheus' text format, outside /v1 (no API key reads it: it describes the
 * whole service, every business). With METRICS_TOKEN set, callers present it as a bearer
 * token; without it, only callers on the loopback interface, not through a proxy, may read it.
 * A query string changes nothing (some scrapers add one).
 */
export function metricsStep(metrics: Metrics, token: string | undefined): EdgeStep {
  const expected = token ? digest(`Bearer ${token}`) : null;
  return {
    name: 'metrics',
    run(ctx) {
      const { request } = ctx;
      if (request.pathname !== METRICS_PATH) return;
      ctx.template = METRICS_PATH;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        ctx.headers.Allow = 'GET, HEAD';
        throw EdgeErrors.methodNotAllowed(`${request.method} is not allowed on ${METRICS_PATH}; use GET.`);
      }
      if (expected) {
        const given = request.header('authorization');
        if (!given || !timingSafeEqual(digest(given), expected)) {
          ctx.headers['WWW-Authenticate'] = 'Bearer';
          throw MetricsErrors.metricsTokenInvalid();
        }
      } else if (!loopbackCaller(ctx)) throw MetricsErrors.metricsNotLocal();
      return metrics.registry.metrics().then(
        (text) => {
          ctx.answer = { status: 200, headers: { 'content-type': metrics.registry.contentType, 'content-length': String(Buffer.byteLength(text)) }, body: request.method === 'HEAD' ? null : text };
        },
        (err: unknown) => {
          log.error({ err }, 'metrics: not collected');
          throw internalError();
        },
      );
    },
  };
}
