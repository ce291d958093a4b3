import { createHash, timingSafeEqual } from 'node:crypto';
import type { Metrics } from '../../../metrics.ts';
import { log } from '../../../log.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { internalError } from '../../error-envelope.ts';
import { MetricsErrors } from '../../metrics.errors.ts';
import type { EdgeRequest, EdgeStep } from '../runner.ts';

export const METRICS_PATH = '/metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether the caller is this machine, directly (a request that came through a proxy names its client in a forwarding header). */
function loopbackCaller(request: EdgeRequest): boolean {
  const address = request.remoteAddress ?? '';
  const local = address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
  return local && request.header('x-forwarded-for') === null && request.header('forwarded') === null && request.header('x-real-ip') === null;
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
      } else if (!loopbackCaller(request)) throw MetricsErrors.metricsNotLocal();
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
