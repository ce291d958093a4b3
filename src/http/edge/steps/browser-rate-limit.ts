import { EdgeErrors } from '../../edge.errors.ts';
import { rateLimitHeaders, type RateLimiter } from '../../rate-limit.ts';
import { whenReady, type EdgeStep } from '../runner.ts';
import { clientOf } from './client.ts';

const MINUTE_MS = 60_000;

/**
 * The browser booking's own limit (the contract's "Embedded booking components"): a
 * publishable key's calls of the browser booking (create a booking, read it or start its
 * checkout with its client secret) count per client address (behind a trusted proxy, the one
 * it names), BROWSER_BOOKING_RATE_LIMIT a minute; beyond, 429 rate_limited with Retry-After.
 * The key's own per-second limit (rate-limit) applies as well. Run once the operations are
 * known and admitted (after operation-access), for every transport.
 */
export function browserRateLimitStep(deps: { limiter: RateLimiter; limit: number }): EdgeStep {
  return {
    name: 'browser-rate-limit',
    run(ctx) {
      const principal = ctx.principal;
      if (!principal || principal.keyKind !== 'publishable' || !ctx.operations?.some((op) => op.access.browser)) return;
      return whenReady(deps.limiter.hit(`browser-booking:address:${clientOf(ctx).address ?? 'unknown'}`, deps.limit, MINUTE_MS), (decision) => {
        if (decision.allowed && ctx.rate && ctx.rate.remaining <= decision.remaining) return; // the key's own limit is the nearer one
        Object.assign(ctx.headers, rateLimitHeaders(decision));
        if (!decision.allowed) {
          ctx.headers['Retry-After'] = String(decision.resetSeconds);
          throw EdgeErrors.rateLimited(decision.limit, decision.resetSeconds, 'from this address', 'minute');
        }
      });
    },
  };
}
