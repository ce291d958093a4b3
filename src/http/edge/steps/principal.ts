import type { PrismaClient } from '../../../generated/prisma/client.ts';
import { authenticate } from '../../../platform/api-keys.ts';
import { assertKeyEnvironment } from '../../../domain/access/permissions.ts';
import { ACCESS_TOKEN_PATTERN, appTokenPrincipal } from '../../../oauth/token-principal.ts';
import type { OAuthServer } from '../../../oauth/provider.ts';
import { whenReady, type EdgeStep } from '../runner.ts';

export interface PrincipalDeps {
  prisma: PrismaClient;
  /** The environment a host name serves, when the operator split them (else null). */
  hostEnvironment(hostname: string): 'live' | 'test' | null;
  /** The authorization server, whose access tokens are callers too (OAuth apps). */
  oauth?: OAuthServer;
}

/**
 * Authentication and the key's environment (an API key, or an OAuth app's access token): the Authorization header of an HTTP request, or
 * the credential a graphql-ws connection opened with, checked again for each of its
 * operations (a revoked key stops there). At once, without a promise, for a key seen recently.
 */
export function principalStep(deps: PrincipalDeps): EdgeStep {
  return {
    name: 'principal',
    run(ctx) {
      if (ctx.kind === 'graphiql') return; // the page itself; its operations need a key
      if (ctx.principal) return; // an ops screen session (ops-session)
      const authorization = ctx.request.header('authorization');
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
      // An OAuth app's access token, or an API key.
      const caller = deps.oauth && bearer && ACCESS_TOKEN_PATTERN.test(bearer) ? appTokenPrincipal(deps.prisma, deps.oauth, bearer) : authenticate(deps.prisma, authorization);
      return whenReady(caller, (principal) => {
        assertKeyEnvironment(principal, deps.hostEnvironment(ctx.request.hostname));
        ctx.principal = principal;
      });
    },
  };
}
