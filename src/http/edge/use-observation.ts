import { getOperationAST, type DocumentNode } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import type { Metrics } from '../../metrics.ts';
import type { EdgePlugin, ServerContext } from './context.ts';

/** `query NewestBookings`, `subscription anonymous`: an operation as the access log names it. */
function describe(document: DocumentNode, operationName: string | null | undefined): string {
  const operation = getOperationAST(document, operationName);
  return operation ? `${operation.operation} ${operation.name?.value ?? 'anonymous'}` : 'unknown';
}

/**
 * What the access log and the metrics read of a request in the pipeline (src/http/observe.ts):
 * the caller, route and kind once it is answered, the GraphQL operation it ran; and GraphQL
 * subscriptions over SSE, counted while open (the WebSocket counts its own, src/http/websocket.ts).
 */
export function useObservation(metrics: Metrics | undefined): EdgePlugin {
  return {
    onResponse({ serverContext }) {
      const edge = serverContext as ServerContext;
      const record = edge.record;
      if (!record) return;
      record.principal = edge.principal;
      record.route = edge.route;
      record.kind = edge.kind;
    },
    onExecute({ args }) {
      const record = (args.contextValue as unknown as ServerContext).record;
      if (record) record.operation = describe(args.document, args.operationName);
    },
    onSubscribe({ args }) {
      const edge = args.contextValue as unknown as ServerContext;
      if (edge.record) edge.record.operation = describe(args.document, args.operationName);
      if (edge.connection || !metrics) return;
      return {
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) return;
          const closed = metrics.subscriptionOpened('sse');
          return { onEnd: closed };
        },
      };
    },
  };
}
