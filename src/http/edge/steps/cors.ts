import { getCORSHeadersByRequestAndOptions } from '@whatwg-node/server';
import type { EdgeStep } from '../runner.ts';

/** The answer's headers a browser client reads: the request id, the rate limit, a replay, a deprecation. */
export const EXPOSED_HEADERS = ['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed', 'Deprecation', 'Sunset'];

/**
 * CORS. A preflight (OPTIONS) is answered 204 at once, for any origin: it carries no key, so
 * which business it concerns is not known yet. Then, for a request with an Origin header:
 * - a publishable key's: only an origin its business allows (src/http/edge/steps/browser-origin.ts)
 *   gets Access-Control-Allow-Origin; a refused one gets no CORS header at all;
 * - anything else, by @whatwg-node/server's own rules (yoga's default: any origin, with
 *   credentials). A cookie sent from another origin is still refused (ops-session).
 * Every CORS answer exposes the headers a browser client needs (EXPOSED_HEADERS).
 */
export function corsStep(): EdgeStep {
  return {
    name: 'cors',
    run(ctx) {
      if (ctx.request.method === 'OPTIONS') ctx.answer = { status: 204, headers: { 'content-length': '0' }, body: null };
    },
    answered(ctx) {
      const request = ctx.request;
      const origin = request.header('origin');
      if (origin === null || ctx.browserOrigin === 'refused') return;
      if (ctx.browserOrigin === 'allowed') {
        Object.assign(ctx.headers, { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', ') });
        return;
      }
      const headers = getCORSHeadersByRequestAndOptions({ headers: { get: (name: string) => request.header(name.toLowerCase()) } } as Request, { exposedHeaders: EXPOSED_HEADERS });
      if (headers) Object.assign(ctx.headers, headers);
    },
  };
}
