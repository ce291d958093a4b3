import { getCORSHeadersByRequestAndOptions } from '@whatwg-node/server';
import type { EdgeStep } from '../runner.ts';

/**
 * CORS, by @whatwg-node/server's own rules (yoga's default: any origin, with credentials): a
 * preflight (OPTIONS) is answered 204 at once; every answer to a request with an Origin header
 * carries the CORS headers. A cookie sent from another origin is still refused (ops-session).
 */
export function corsStep(): EdgeStep {
  return {
    name: 'cors',
    run(ctx) {
      if (ctx.request.method === 'OPTIONS') ctx.answer = { status: 204, headers: { 'content-length': '0' }, body: null };
    },
    answered(ctx) {
      const request = ctx.request;
      if (request.header('origin') === null) return;
      const headers = getCORSHeadersByRequestAndOptions({ headers: { get: (name: string) => request.header(name.toLowerCase()) } } as Request, {});
      if (headers) Object.assign(ctx.headers, headers);
    },
  };
}
