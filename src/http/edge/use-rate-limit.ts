import { EdgeErrors } from '../edge.errors.ts';
import { rateLimitHeaders, type RateDecision, type RateLimiter } from '../rate-limit.ts';
import { refusing, whenReady, type EdgePlugin, type ServerContext } from './context.ts';

export interface RateLimitDeps {
  limiter: RateLimiter;
  limits: { live: number; test: number };
}

/** Count one request (or WebSocket operation) of the caller's key; over the limit: 429 with Retry-After. */
export function countRequest(deps: RateLimitDeps, edge: ServerContext): void | Promise<void> {
  const principal = edge.principal!;
  return whenReady(deps.limiter.hit(principal.keyId, principal.livemode ? deps.limits.live : deps.limits.test), (decision) => decide(edge, decision));
}

function decide(edge: ServerContext, decision: RateDecision): void {
  edge.rate = decision;
  Object.assign(edge.headers, rateLimitHeaders(decision));
  if (!decision.allowed) {
    edge.headers['Retry-After'] = String(decision.resetSeconds);
    throw EdgeErrors.rateLimited(decision.limit, decision.resetSeconds);
  }
}

/** Per-key rate limits for every transport; every HTTP answer carries the RateLimit-* headers. */
export function useRateLimit(deps: RateLimitDeps): EdgePlugin {
  return {
    onRequest: refusing(({ serverContext }) => {
      if (serverContext.principal) return countRequest(deps, serverContext);
    }),
    async onContextBuilding({ context }) {
      const edge = context as unknown as ServerContext;
      if (edge.connection && !edge.rate) await countRequest(deps, edge);
    },
  };
}
