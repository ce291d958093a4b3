import { EdgeErrors } from '../../edge.errors.ts';
import type { Deprecation } from '../../../../rest-adapter/route.ts';
import type { EdgeStep, MatchedRoute } from '../runner.ts';
import { EMBED_THEME_PATH } from './embed.ts';

export type RouteLookup = (method: string, pathname: string) => { kind: 'found'; route: MatchedRoute } | { kind: 'method_not_allowed'; allowed: string[] } | { kind: 'not_found' };

/**
 * How a request is served: GraphQL (the GraphQL path), its GraphiQL page, the embedded
 * components' theme (a key's branding, src/http/edge/steps/embed.ts), or a REST route of
 * the table. An unknown path is 404 and a known path with another method 405 (with Allow),
 * before authentication. A REST request's operation is known from here on.
 */
export function routingStep(lookup: RouteLookup, graphqlPath: string): EdgeStep {
  return {
    name: 'routing',
    run(ctx) {
      const { method, pathname } = ctx.request;
      if (pathname === graphqlPath) {
        const page = ctx.transport === 'http' && method === 'GET' && (ctx.request.header('accept') ?? '').includes('text/html');
        ctx.kind = page ? 'graphiql' : 'graphql';
        ctx.template = graphqlPath;
        return;
      }
      if (pathname === EMBED_THEME_PATH) {
        if (method !== 'GET') {
          ctx.headers.Allow = 'GET';
          throw EdgeErrors.methodNotAllowed(`${method} is not allowed on ${pathname}; use GET.`);
        }
        ctx.kind = 'embed';
        ctx.template = EMBED_THEME_PATH;
        return;
      }
      const match = lookup(method, pathname);
      if (match.kind === 'not_found') throw EdgeErrors.routeNotFound(method, pathname);
      if (match.kind === 'method_not_allowed') {
        ctx.headers.Allow = match.allowed.join(', ');
        throw EdgeErrors.methodNotAllowed(`${method} is not allowed on ${pathname}; use ${match.allowed.join(' or ')}.`);
      }
      ctx.kind = 'rest';
      ctx.route = match.route;
      ctx.template = match.route.path;
      if (match.route.deprecated) Object.assign(ctx.headers, deprecationHeaders(match.route.deprecated));
      ctx.operations = match.route.operation ? [match.route.operation] : [];
      // A write is any method but GET and HEAD: its audit record is written whatever its outcome.
      if (method !== 'GET' && method !== 'HEAD') {
        ctx.audit.write = true;
        ctx.audit.operation = match.route.operation?.name ?? `${method} ${match.route.path}`;
      }
    },
  };
}

/**
 * A deprecated route's every answer, success or refusal, says so: RFC 9745's `Deprecation`
 * (the day it was deprecated) and RFC 8594's `Sunset` (the day after which it may stop).
 */
function deprecationHeaders(deprecated: Deprecation): Record<string, string> {
  const day = (date: string) => new Date(`${date}T00:00:00Z`);
  return { Deprecation: `@${day(deprecated.since).getTime() / 1000}`, Sunset: day(deprecated.sunset).toUTCString() };
}
