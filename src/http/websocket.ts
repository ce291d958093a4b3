import type { Server } from 'node:http';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { YogaInitialContext } from 'graphql-yoga';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { DomainError } from '../domain/shared/errors.ts';
import { newId } from '../domain/shared/ids.ts';
import type { ServerContext } from './edge/context.ts';
import { EdgeErrors } from './edge.errors.ts';
import { internalError, toGraphQLError } from './error-envelope.ts';
import { withContractExtensions, type Yoga } from './graphql-server.ts';
import { AuditTrail, requestScope, type RequestScope } from './request-scope.ts';

export interface GraphQLWebSocketOptions {
  yoga: Yoga;
  /** The environment a host name serves, when the operator split them (else null). */
  hostEnvironment: (hostname: string) => 'live' | 'test' | null;
  /** Checks a credential when a connection opens (the same admission as every request). */
  admit(authorization: string | null, hostEnvironment: 'live' | 'test' | null): Promise<unknown>;
}

/** Close codes of a refused connection; the close reason is the contract's error code. */
export const WS_CLOSE = { unauthenticated: 4401, forbidden: 4403, internal: CloseCode.InternalServerError } as const;

/** `connection_init` payload: the key as an HTTP Authorization header value. */
type ConnectionParams = { authorization?: unknown; Authorization?: unknown } | undefined;

/** What one connection remembers: the credential it opened with, checked again on every operation. */
type ConnectionExtra = { authorization: string | null; hostEnvironment: 'live' | 'test' | null };

type Enveloped = ReturnType<Yoga['getEnveloped']>;
type RootValue = { execute: Enveloped['execute']; subscribe: Enveloped['subscribe']; requestId: string; audit: AuditTrail };

/**
 * graphql-ws on the GraphQL path of `server`. Every operation runs through `yoga.getEnveloped()`
 * with the same edge context as an HTTP request, so the same plugins authenticate it (the
 * connection's key, again for each operation), count it against the key's rate limit, scope
 * it to the tenant and mask its errors.
 *
 * The key travels in the connection parameters (`{ authorization: 'Bearer svc_...' }`, since
 * browsers cannot set headers on a WebSocket); without a valid one the connection is closed
 * with 4401 (4403 for a key that may not connect) and the error code as reason.
 * Mutations are refused: they go over HTTP, where idempotency keys and the audit log apply.
 */
export function attachGraphQLWebSocket(server: Server, options: GraphQLWebSocketOptions): { close(): Promise<void> } {
  const { yoga } = options;
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint });

  const refuse = (socket: { close(code: number, reason: string): void }, err: unknown) => {
    if (err instanceof DomainError) {
      socket.close(err.type === 'authorization_error' ? WS_CLOSE.forbidden : WS_CLOSE.unauthenticated, err.code);
    } else {
      console.error('graphql-ws connection failed', err);
      socket.close(WS_CLOSE.internal, 'internal_error');
    }
  };

  const disposable = useServer<ConnectionParams, ConnectionExtra>(
    {
      async onConnect(ctx) {
        const params = ctx.connectionParams;
        const raw = params?.authorization ?? params?.Authorization;
        ctx.extra.authorization = typeof raw === 'string' ? raw : null;
        ctx.extra.hostEnvironment = options.hostEnvironment((ctx.extra.request.headers.host ?? '').replace(/:\d+$/, ''));
        try {
          await options.admit(ctx.extra.authorization, ctx.extra.hostEnvironment);
          return true;
        } catch (err) {
          // Close with our code first; graphql-ws's own 4403 "Forbidden" then finds it closing.
          refuse(ctx.extra.socket, err);
          return false;
        }
      },

      async onSubscribe(ctx, _id, payload) {
        const requestId = newId('request');
        const audit = new AuditTrail();
        return requestScope.run({ requestId, audit }, async () => {
          const fail = (error: DomainError) => [toGraphQLError(error, requestId)];
          const edge: ServerContext = {
            requestId, audit, idempotencyKey: null, headers: {}, finally: [],
            connection: { authorization: ctx.extra.authorization ?? null, hostEnvironment: ctx.extra.hostEnvironment ?? null },
          };
          // No fetch `request` here, as in yoga's graphql-ws recipe: yoga's HTTP-only checks
          // (such as "mutations need POST") look for one and stay out of the socket's way.
          const initialContext = { ...edge, params: { query: payload.query, operationName: payload.operationName ?? undefined, variables: payload.variables ?? undefined, extensions: payload.extensions ?? undefined } };
          const { schema, parse, validate, execute, subscribe, contextFactory } = yoga.getEnveloped(initialContext as typeof initialContext & YogaInitialContext);
          let contextValue: unknown;
          try {
            contextValue = await contextFactory();
          } catch (err) {
            const error = err instanceof DomainError ? err : internalError();
            // A key revoked since the connection opened (or now refused) closes the connection.
            if (error.type === 'authentication_error' || error.type === 'authorization_error' || !(err instanceof DomainError)) refuse(ctx.extra.socket, err);
            return fail(error);
          }
          let document: DocumentNode;
          try {
            document = parse(payload.query);
          } catch (err) {
            if (!(err instanceof GraphQLError)) throw err;
            return contractErrors([err], requestId);
          }
          const operation = getOperationAST(document, payload.operationName);
          if (!operation) return contractErrors([new GraphQLError('Could not determine what operation to execute.')], requestId);
          if (operation.operation === 'mutation') {
            return fail(EdgeErrors.methodNotAllowed('Mutations are not allowed over the WebSocket; send them with POST /graphql.'));
          }
          const errors = validate(schema, document);
          if (errors.length) return contractErrors(errors, requestId);
          const rootValue: RootValue = { execute, subscribe, requestId, audit };
          return {
            schema,
            document,
            operationName: payload.operationName,
            variableValues: payload.variables,
            contextValue,
            rootValue,
          } satisfies ExecutionArgs;
        });
      },

      // Run in the operation's request scope, so masked errors carry its request id.
      execute: (args) => {
        const root = args.rootValue as RootValue;
        return requestScope.run({ requestId: root.requestId, audit: root.audit }, () => root.execute(args));
      },
      subscribe: async (args) => {
        const root = args.rootValue as RootValue;
        const scope = { requestId: root.requestId, audit: root.audit };
        const result = await requestScope.run(scope, () => root.subscribe(args));
        return isAsyncIterable(result) ? inRequestScope(scope, result) : result;
      },

      onNext(_ctx, _id, _payload, args, result) {
        const { errors } = result as ExecutionResult;
        if (errors?.length) return { ...result, errors: contractErrors(errors, (args.rootValue as RootValue).requestId).map((e) => e.toJSON()) };
      },
    },
    wss,
  );

  return {
    async close() {
      await disposable.dispose();
    },
  };
}

/** GraphQL's own errors with the contract's extensions, as over HTTP; yoga's HTTP hints mean nothing here. */
const contractErrors = (errors: readonly GraphQLError[], requestId: string) => withContractExtensions(errors, requestId, { dropHttp: true });

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return typeof Object(value)[Symbol.asyncIterator] === 'function';
}

/**
 * An event stream whose every step runs in the operation's request scope (AsyncLocalStorage
 * does not follow an iterator into the caller's loop). An async generator, so that
 * graphql-ws ends it when the client completes or disconnects.
 */
function inRequestScope<T>(scope: RequestScope, source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const run = <R>(fn: () => Promise<R>) => requestScope.run(scope, fn);
  const generator: AsyncGenerator<T> = {
    next: (...args) => run(() => iterator.next(...args)),
    return: (value) => run(async () => (iterator.return ? iterator.return(value) : { done: true as const, value: value as never })),
    throw: (err) => run(async () => {
      if (iterator.throw) return iterator.throw(err);
      throw err;
    }),
    [Symbol.asyncIterator]: () => generator,
  };
  return generator;
}
