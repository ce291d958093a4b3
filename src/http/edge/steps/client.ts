import { clientAddressResolver, type ClientAddress, type TrustProxy } from '../../client-address.ts';
import type { EdgeContext, EdgeStep } from '../runner.ts';

/**
 * Who the client is, read once before any other step: the connection's address, or behind a
 * trusted proxy (TRUST_PROXY) the address X-Forwarded-For gives. Steps that record or limit
 * by address (a signature's IP, a per-address rate limit, /metrics' loopback rule) read it
 * with `clientOf`.
 */
export function clientStep(trust: TrustProxy): EdgeStep {
  const resolve = clientAddressResolver(trust);
  return {
    name: 'client',
    run(ctx) {
      ctx.client = resolve(ctx.request.remoteAddress, ctx.request.header('x-forwarded-for'));
    },
  };
}

/** The request's client (the connection's peer where the client step did not run: an edge without it trusts no proxy). */
export function clientOf(ctx: EdgeContext): ClientAddress {
  return ctx.client ?? { address: ctx.request.remoteAddress, throughTrustedProxy: false };
}
