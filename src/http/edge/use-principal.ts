import type { PrismaClient } from '../../generated/prisma/client.ts';
import { authenticate } from '../../platform/api-keys.ts';
import { sessionPrincipal } from '../../ops/sessions.ts';
import { assertKeyEnvironment, type Principal } from '../../domain/access/permissions.ts';
import { refusing, whenReady, type EdgePlugin, type ServerContext } from './context.ts';

export interface PrincipalDeps {
  prisma: PrismaClient;
  /** The environment a host name serves, when the operator split them (else null). */
  hostEnvironment(hostname: string): 'live' | 'test' | null;
}

/** The caller behind a credential, on a host that serves its key's environment (at once when the key is cached). */
export function admit(deps: PrincipalDeps, authorization: string | null | undefined, hostEnvironment: 'live' | 'test' | null, opsSession?: string | null): Principal | Promise<Principal> {
  // An ops screen session (its cookie, on a WebSocket that opened without a key).
  const caller = opsSession && !authorization ? sessionPrincipal(deps.prisma, opsSession) : authenticate(deps.prisma, authorization);
  return whenReady(caller, (principal) => {
    assertKeyEnvironment(principal, hostEnvironment);
    return principal;
  });
}

/** The caller of an HTTP request, from its Authorization header and the host it reached. */
export function admitRequest(deps: PrincipalDeps, authorization: string | null | undefined, hostname: string, edge: ServerContext): void | Promise<void> {
  return whenReady(admit(deps, authorization, deps.hostEnvironment(hostname)), (principal) => {
    edge.principal = principal;
  });
}

/**
 * Authentication and the key's environment, once for every transport: the Authorization
 * header of an HTTP request (REST and GraphQL), or the credential a WebSocket connection
 * opened with, checked again for each of its operations (a revoked key stops there).
 */
export function usePrincipal(deps: PrincipalDeps): EdgePlugin {
  return {
    onRequest: refusing(({ request, url, serverContext }) => {
      if (serverContext.kind === 'graphiql') return; // the page itself; its operations need a key
      if (serverContext.principal) return; // an ops screen session (use-ops-screen.ts)
      return admitRequest(deps, request.headers.get('authorization'), url.hostname, serverContext);
    }),
    async onContextBuilding({ context, extendContext }) {
      const edge = context as unknown as ServerContext;
      if (edge.principal || !edge.connection) return;
      extendContext({ principal: await admit(deps, edge.connection.authorization, edge.connection.hostEnvironment, edge.connection.opsSession) } as never);
    },
  };
}
