import { EdgeErrors } from '../../edge.errors.ts';
import { rateLimitHeaders, type RateDecision, type RateLimiter } from '../../rate-limit.ts';
import { whenReady, type EdgeStep } from '../runner.ts';
import { clientOf } from './client.ts';

const MINUTE_MS = 60_000;

/**
 * The browser booking's own limit (the contract's "Embedded booking components"): a
 * publishable key's calls of the browser booking (create a booking, read it or start its
 * checkout with its client secret) count per client address (behind a trusted proxy, the one
 * it names), every call (a GraphQL request's aliases and root fragments too),
 * BROWSER_BOOKING_RATE_LIMIT a minute; beyond, 429 rate_limited with Retry-After. The key's
 * own per-second limit (rate-limit) applies as well. Run once the operations are known and
 * admitted (after operation-access), for every transport.
 */
export function browserRateLimitStep(deps: { limiter: RateLimiter; limit: number }): EdgeStep {
  return {
    name: 'browser-rate-limit',
    run(ctx) {
      const principal = ctx.principal;
      // Each call counts: a GraphQL request may make several (under aliases), a REST one makes one.
      const calls = principal?.keyKind === 'publishable' ? (ctx.operations?.filter((op) => op.access.browser).length ?? 0) : 0;
      if (calls === 0) return;
      const key = `browser-booking:address:${clientOf(ctx).address ?? 'unknown'}`;
      const decide = (decision: RateDecision) => {
        if (decision.allowed && ctx.rate && ctx.rate.remaining <= decision.remaining) return; // the key's own limit is the nearer one
        Object.assign(ctx.headers, rateLimitHeaders(decision));
        if (!decision.allowed) {
          ctx.headers['Retry-After'] = String(decision.resetSeconds);
          throw EdgeErrors.rateLimited(decision.limit, decision.resetSeconds, 'from this address', 'minute');
        }
      };
      if (calls === 1) return whenReady(deps.limiter.hit(key, deps.limit, MINUTE_MS), decide);
      return (async () => {
        let decision = await deps.limiter.hit(key, deps.limit, MINUTE_MS);
        for (let i = 1; i < calls && decision.allowed; i++) decision = await deps.limiter.hit(key, deps.limit, MINUTE_MS);
        decide(decision);
      })();
    },
  };
}
