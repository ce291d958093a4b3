import type { PrismaClient } from '../../../generated/prisma/client.ts';
import { authenticate } from '../../../platform/api-keys.ts';
import { assertKeyEnvironment } from '../../../domain/access/permissions.ts';
import { whenReady, type EdgeStep } from '../runner.ts';

export interface PrincipalDeps {
  prisma: PrismaClient;
  /** The environment a host name serves, when the operator split them (else null). */
  hostEnvironment(hostname: string): 'live' | 'test' | null;
}

/**
 * Authentication and the key's environment: the Authorization header of an HTTP request, or
 * the credential a graphql-ws connection opened with, checked again for each of its
 * operations (a revoked key stops there). At once, without a promise, for a key seen recently.
 */
export function principalStep(deps: PrincipalDeps): EdgeStep {
  return {
    name: 'principal',
    run(ctx) {
      if (ctx.kind === 'graphiql') return; // the page itself; its operations need a key
      if (ctx.principal) return; // an ops screen session (ops-session)
      return whenReady(authenticate(deps.prisma, ctx.request.header('authorization')), (principal) => {
        assertKeyEnvironment(principal, deps.hostEnvironment(ctx.request.hostname));
        ctx.principal = principal;
      });
    },
  };
}
