import type { PrismaClient } from '../../../generated/prisma/client.ts';
import { authenticate, bearerToken } from '../../../platform/api-keys.ts';
import { AccessErrors } from '../../../domain/access/access.errors.ts';
import { assertKeyEnvironment, type Principal } from '../../../domain/access/permissions.ts';
import { CLIENT_SECRET_HEADER, CLIENT_SECRET_PARAM, type BrowserBookingSecrets } from '../../../domain/bookings/browser-booking.ts';
import { ACCESS_TOKEN_PATTERN, appTokenPrincipal } from '../../../oauth/token-principal.ts';
import type { OAuthServer } from '../../../oauth/provider.ts';
import { whenReady, type EdgeContext, type EdgeStep } from '../runner.ts';

export interface PrincipalDeps {
  prisma: PrismaClient;
  /** The environment a host name serves, when the operator split them (else null). */
  hostEnvironment(hostname: string): 'live' | 'test' | null;
  /** Checks a booking's client secret (the browser booking's caller). */
  browserBookingSecrets: BrowserBookingSecrets;
  /** The authorization server, whose access tokens are callers too (OAuth apps). */
  oauth?: OAuthServer;
}

/**
 * Authentication and the key's environment (an API key, or an OAuth app's access token): the Authorization header of an HTTP request, or
 * the credential a graphql-ws connection opened with, checked again for each of its
 * operations (a revoked key stops there). At once, without a promise, for a key seen recently.
 *
 * A publishable key sent with a booking's `client_secret` (X-Client-Secret, or the query
 * parameter) is a caller of its own kind: the browser booking of the embedded components,
 * which may read that one booking and start its checkout, and nothing else
 * (`OperationAccess.browser`). A client secret that is not one of the key's business and
 * environment is refused here (401 invalid_client_secret); one sent with a secret key is ignored.
 */
export function principalStep(deps: PrincipalDeps): EdgeStep {
  return {
    name: 'principal',
    run(ctx) {
      if (ctx.kind === 'graphiql') return; // the page itself; its operations need a key
      if (ctx.principal) return; // an ops screen session (ops-session)
      const authorization = ctx.request.header('authorization');
      const bearer = bearerToken(authorization);
      // An OAuth app's access token, or an API key.
      const caller = deps.oauth && bearer && ACCESS_TOKEN_PATTERN.test(bearer) ? appTokenPrincipal(deps.prisma, deps.oauth, bearer) : authenticate(deps.prisma, authorization, bearer);
      return whenReady(caller, (principal) => {
        assertKeyEnvironment(principal, deps.hostEnvironment(ctx.request.hostname));
        ctx.principal = principal.keyKind === 'publishable' ? browserCaller(deps, ctx, principal) : principal;
      });
    },
  };
}

function browserCaller(deps: PrincipalDeps, ctx: EdgeContext, principal: Principal): Principal {
  const secret = ctx.request.header(CLIENT_SECRET_HEADER) ?? ctx.request.searchParams.get(CLIENT_SECRET_PARAM);
  if (secret === null) return principal;
  const booking = deps.browserBookingSecrets.bookingOf({ businessId: principal.businessId, livemode: principal.livemode }, secret.trim());
  if (booking === null) throw AccessErrors.invalidClientSecret();
  return { ...principal, booking };
}
