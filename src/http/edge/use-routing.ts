import { EdgeErrors } from '../edge.errors.ts';
import { refusing, type EdgePlugin, type MatchedRoute, type ServerContext } from './context.ts';

export type RouteLookup = (method: string, pathname: string) => { kind: 'found'; route: MatchedRoute } | { kind: 'method_not_allowed'; allowed: string[] } | { kind: 'not_found' };

/**
 * Decides how a request is served before anything else: GraphQL (/graphql), its GraphiQL
 * page, or a REST route of the table. An unknown path is 404 and a known path with another
 * method 405 (with Allow), before authentication.
 */
export function useRouting(lookup: RouteLookup, graphqlPath: string): EdgePlugin {
  return {
    onRequest: refusing(({ request, url, serverContext }) => {
      const method = request.method.toUpperCase();
      if (url.pathname === graphqlPath) {
        const page = method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
        serverContext.kind = page ? 'graphiql' : 'graphql';
        return;
      }
      const match = lookup(method, url.pathname);
      if (match.kind === 'not_found') throw EdgeErrors.routeNotFound(method, url.pathname);
      if (match.kind === 'method_not_allowed') {
        serverContext.headers.Allow = match.allowed.join(', ');
        throw EdgeErrors.methodNotAllowed(`${method} is not allowed on ${url.pathname}; use ${match.allowed.join(' or ')}.`);
      }
      enterRoute(match.route, method, serverContext);
    }),
  };
}

/** A request bound for a REST route: the route it runs, and its audit (a write is any method but GET and HEAD). */
export function enterRoute(route: MatchedRoute, method: string, edge: ServerContext): void {
  edge.kind = 'rest';
  edge.route = route;
  if (method !== 'GET' && method !== 'HEAD') {
    edge.audit.write = true;
    edge.audit.operation = route.operation?.name ?? `${method} ${route.path}`;
  }
}
