import { refusing, type EdgePlugin } from './context.ts';

/**
 * The last step for REST routes: the request, admitted by every step before, is served by its
 * route (rest-adapter/adapter.ts) and the answer ends the request. GraphQL requests go on to yoga.
 */
export function useRestExecution(): EdgePlugin {
  return {
    onRequest: refusing(({ request, url, serverContext }) => {
      if (serverContext.kind === 'rest') return serverContext.route!.serve(request, url, serverContext.body ?? '', serverContext);
    }),
  };
}
