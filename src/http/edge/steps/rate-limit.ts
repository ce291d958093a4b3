import { EdgeErrors } from '../../edge.errors.ts';
import { rateLimitHeaders, type RateDecision, type RateLimiter } from '../../rate-limit.ts';
import { whenReady, type EdgeContext, type EdgeStep } from '../runner.ts';

export interface RateLimitDeps {
  limiter: RateLimiter;
  limits: { live: number; test: number };
}

/** Per-key rate limits: every request (and graphql-ws operation) of a key counts; over the limit, 429 with Retry-After. */
export function rateLimitStep(deps: RateLimitDeps): EdgeStep {
  return {
    name: 'rate-limit',
    run(ctx) {
      const principal = ctx.principal;
      if (!principal) return;
      return whenReady(deps.limiter.hit(principal.keyId, principal.livemode ? deps.limits.live : deps.limits.test), (decision) => decide(ctx, decision));
    },
  };
}

function decide(ctx: EdgeContext, decision: RateDecision): void {
  ctx.rate = decision;
  Object.assign(ctx.headers, rateLimitHeaders(decision));
  if (!decision.allowed) {
    ctx.headers['Retry-After'] = String(decision.resetSeconds);
    throw EdgeErrors.rateLimited(decision.limit, decision.resetSeconds);
  }
}
