import type { Server } from 'node:http';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { YogaInitialContext, YogaServerInstance } from 'graphql-yoga';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { GraphQLContext } from '../builder.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { authenticate } from '../domain/access/api-keys.ts';
import { assertKeyEnvironment, type Principal } from '../domain/access/permissions.ts';
import { DomainError } from '../domain/shared/errors.ts';
import { newId } from '../domain/shared/ids.ts';
import { errorExtensions, internalError } from './error-envelope.ts';
import { newAuditNote, withContractExtensions, type ServerContext } from './graphql-server.ts';
import type { RateLimiter } from './rate-limit.ts';
import { requestScope } from './request-scope.ts';

export interface GraphQLWebSocketOptions {
  yoga: YogaServerInstance<ServerContext, GraphQLContext>;
  prisma: PrismaClient;
  /** The per-key limiter of HTTP requests; each operation over the socket counts as one. */
  limiter: RateLimiter;
  limits: { live: number; test: number };
  /** The environment a host name serves, when the operator split them (else null). */
  hostEnvironment: (hostname: string) => 'live' | 'test' | null;
}

/** Close codes of a refused connection; the close reason is the contract's error code. */
export const WS_CLOSE = { unauthenticated: 4401, forbidden: 4403, internal: CloseCode.InternalServerError } as const;

/** `connection_init` payload: the key as an HTTP Authorization header value. */
type ConnectionParams = { authorization?: unknown; Authorization?: unknown } | undefined;

/** What one connection remembers: the credential it opened with, checked again on every operation. */
type ConnectionExtra = { authorization: string | null; hostEnvironment: 'live' | 'test' | null };

type Enveloped = ReturnType<YogaServerInstance<ServerContext, GraphQLContext>['getEnveloped']>;
type RootValue = { execute: Enveloped['execute']; subscribe: Enveloped['subscribe']; requestId: string };

/**
 * graphql-ws on the GraphQL path of `server`. Every operation runs through `yoga.getEnveloped()`
 * with the same ServerContext as an HTTP request (principal, request id, audit note), so it
 * gets the same context, tenant scoping, permission checks and error masking.
 *
 * The key travels in the connection parameters (`{ authorization: 'Bearer svc_...' }`, since
 * browsers cannot set headers on a WebSocket); without a valid one the connection is closed
 * with 4401 (4403 for a key that may not connect) and the error code as reason.
 * Mutations are refused: they go over HTTP, where idempotency keys and the audit log apply.
 */
export function attachGraphQLWebSocket(server: Server, options: GraphQLWebSocketOptions): { close(): Promise<void> } {
  const { yoga, prisma, limiter, limits } = options;
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
          assertKeyEnvironment(await authenticate(prisma, ctx.extra.authorization), ctx.extra.hostEnvironment);
          return true;
        } catch (err) {
          // Close with our code first; graphql-ws's own 4403 "Forbidden" then finds it closing.
          refuse(ctx.extra.socket, err);
          return false;
        }
      },

      async onSubscribe(ctx, _id, payload) {
        const requestId = newId('request');
        return requestScope.run({ requestId }, async () => {
          const fail = (error: DomainError) => [new GraphQLError(error.message, { extensions: errorExtensions(error, requestId) })];
          let principal: Principal;
          try {
            // Again per operation: a key revoked since the connection opened stops here.
            principal = await authenticate(prisma, ctx.extra.authorization);
            assertKeyEnvironment(principal, ctx.extra.hostEnvironment ?? null);
          } catch (err) {
            refuse(ctx.extra.socket, err);
            return fail(err instanceof DomainError ? err : internalError());
          }
          const rate = await limiter.hit(principal.keyId, principal.livemode ? limits.live : limits.test);
          if (!rate.allowed) {
            return fail(new DomainError('rate_limit_error', 'rate_limited', `Too many requests for this key: ${rate.limit} per second. Retry after ${rate.resetSeconds} s.`));
          }

          const serverContext: ServerContext = { principal, requestId, idempotencyKey: null, audit: newAuditNote() };
          // No fetch `request` here, as in yoga's graphql-ws recipe: yoga's HTTP-only checks
          // (such as "mutations need POST") look for one and stay out of the socket's way.
          const initialContext = { ...serverContext, params: { query: payload.query, operationName: payload.operationName ?? undefined, variables: payload.variables ?? undefined, extensions: payload.extensions ?? undefined } };
          const { schema, parse, validate, execute, subscribe, contextFactory } = yoga.getEnveloped(initialContext as typeof initialContext & YogaInitialContext);
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
            return fail(new DomainError('invalid_request', 'method_not_allowed', 'Mutations are not allowed over the WebSocket; send them with POST /graphql.', { status: 405 }));
          }
          const errors = validate(schema, document);
          if (errors.length) return contractErrors(errors, requestId);
          const rootValue: RootValue = { execute, subscribe, requestId };
          return {
            schema,
            document,
            operationName: payload.operationName,
            variableValues: payload.variables,
            contextValue: await contextFactory(),
            rootValue,
          } satisfies ExecutionArgs;
        });
      },

      // Run in the operation's request scope, so masked errors carry its request id.
      execute: (args) => {
        const root = args.rootValue as RootValue;
        return requestScope.run({ requestId: root.requestId }, () => root.execute(args));
      },
      subscribe: async (args) => {
        const root = args.rootValue as RootValue;
        const result = await requestScope.run({ requestId: root.requestId }, () => root.subscribe(args));
        return isAsyncIterable(result) ? inRequestScope(root.requestId, result) : result;
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
function inRequestScope<T>(requestId: string, source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const run = <R>(fn: () => Promise<R>) => requestScope.run({ requestId }, fn);
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
