import type { IncomingMessage, Server } from 'node:http';
import { execute as executeGraphQL, getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { YogaInitialContext } from 'graphql-yoga';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocket, WebSocketServer } from 'ws';
import type { GraphQLContext } from '../builder.ts';
import type { EventPubSub, PresentedEvent } from '../events/event-relay.ts';
import { liveEventStreamOf, type LiveEventStream } from '../schema/subscription.ts';
import { DomainError } from '../domain/shared/errors.ts';
import { newId } from '../domain/shared/ids.ts';
import { edgeContext, finishEdge, refusesOperation, runEdge, type EdgeStep } from './edge/runner.ts';
import { EdgeErrors } from './edge.errors.ts';
import { asDomainError, toGraphQLError } from './error-envelope.ts';
import { maskError, withContractExtensions, type Yoga } from './graphql-server.ts';
import { AuditTrail, requestScope, type RequestScope } from './request-scope.ts';
import { nodeRequestUrl, websocketEdgeRequest } from './transports/requests.ts';
import type { RequestFrame } from './transports/yoga.ts';
import { log } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { Principal } from '../domain/access/permissions.ts';

export interface GraphQLWebSocketOptions {
  yoga: Yoga;
  /** The edge's steps: every operation of a connection passes them, as every HTTP request does. */
  steps: readonly EdgeStep[];
  /** Counts the subscriptions open (src/metrics.ts). */
  metrics?: Metrics;
}

/** Close codes of a refused connection; the close reason is the contract's error code. */
export const WS_CLOSE = { unauthenticated: 4401, forbidden: 4403, internal: CloseCode.InternalServerError } as const;

/** `connection_init` payload: the key as an HTTP Authorization header value; the ops screen's CSRF token. */
type ConnectionParams = { authorization?: unknown; Authorization?: unknown; csrfToken?: unknown } | undefined;

/**
 * What one connection remembers: the credential it opened with, checked again on every
 * operation; and for its log lines, its id, when it opened and the key it was admitted with.
 */
type ConnectionExtra = { credential?: { authorization: string | null; csrfToken: string | null }; connectionId?: string; openedAt?: number; principal?: Principal };

type Enveloped = ReturnType<Yoga['getEnveloped']>;
type RootValue = {
  execute: Enveloped['execute'];
  subscribe: Enveloped['subscribe'];
  requestId: string;
  audit: AuditTrail;
  /** The graphql-ws subscription id, its socket and query text (for the shared fan-out). */
  id: string;
  socket: WebSocket;
  query: string;
  /** The operation's result when the edge refused it: sent instead of running it. */
  refused?: ExecutionResult;
};

/** A refusal that ends the connection: the caller is not (or no longer) admitted. */
const endsConnection = (error: DomainError) => error.type === 'authentication_error' || error.type === 'authorization_error';

/**
 * graphql-ws on the GraphQL path of `server`. A connection is admitted, and each of its
 * operations passes, through the edge's steps (src/http/edge/steps.ts), as an HTTP request
 * does: the connection's credential (checked again for each operation: a revoked key stops
 * there), its environment, the ops session's cookie and CSRF token, the key's rate limit, the
 * operation's access and input. Then yoga's envelope parses, validates and runs it with the
 * same context as over HTTP, and masks its errors.
 *
 * The key travels in the connection parameters (`{ authorization: 'Bearer svc_...' }`, since
 * browsers cannot set headers on a WebSocket); without a valid one the connection is closed
 * with 4401 (4403 for a key that may not connect) and the error code as reason.
 * Mutations are refused: they go over HTTP, where idempotency keys and the audit log apply.
 */
export function attachGraphQLWebSocket(server: Server, options: GraphQLWebSocketOptions): { close(): Promise<void> } {
  const { yoga, steps } = options;
  // No permessage-deflate (ws's default, stated here): a zlib context per connection would
  // cost far more memory than the small JSON frames save.
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint, perMessageDeflate: false });
  const fanouts = new WeakMap<EventPubSub, EventFanout>();
  const fanoutOf = (pubsub: EventPubSub) => {
    let fanout = fanouts.get(pubsub);
    if (!fanout) fanouts.set(pubsub, (fanout = new EventFanout(pubsub)));
    return fanout;
  };

  const refuse = (socket: { close(code: number, reason: string): void }, err: unknown) => {
    if (err instanceof DomainError) {
      socket.close(err.type === 'authorization_error' ? WS_CLOSE.forbidden : WS_CLOSE.unauthenticated, err.code);
    } else {
      log.error({ err }, 'graphql-ws connection failed');
      socket.close(WS_CLOSE.internal, 'internal_error');
    }
  };

  /** The edge context of one operation (or of the connection's admission) over this connection. */
  const edgeOf = (extra: ConnectionExtra & { request: IncomingMessage }, requestId: string, audit: AuditTrail) => {
    const url = nodeRequestUrl(extra.request);
    if (!url) throw EdgeErrors.routeNotFound('GET', extra.request.url ?? '');
    return edgeContext(requestId, 'websocket', websocketEdgeRequest(extra.request, url, extra.credential!), audit);
  };

  const disposable = useServer<ConnectionParams, ConnectionExtra>(
    {
      async onConnect(ctx) {
        connectionFields(ctx.extra); // its id and start
        const params = ctx.connectionParams;
        const raw = params?.authorization ?? params?.Authorization;
        ctx.extra.credential = { authorization: typeof raw === 'string' ? raw : null, csrfToken: typeof params?.csrfToken === 'string' ? params.csrfToken : null };
        try {
          // The edge's request phase: the connection's credential, cookie, environment and rate.
          const edge = edgeOf(ctx.extra, ctx.extra.connectionId!, new AuditTrail());
          await runEdge(steps, edge);
          ctx.extra.principal = edge.principal;
          log.info(connectionFields(ctx.extra), 'websocket opened');
          return true;
        } catch (err) {
          // Close with our code first; graphql-ws's own 4403 "Forbidden" then finds it closing.
          refuse(ctx.extra.socket, err);
          return false;
        }
      },

      async onSubscribe(ctx, id, payload) {
        const requestId = newId('request');
        const audit = new AuditTrail();
        return requestScope.run({ requestId, audit }, async () => {
          const edge = edgeOf(ctx.extra, requestId, audit);
          const graphql: NonNullable<typeof edge.graphql> = { params: { query: payload.query, operationName: payload.operationName ?? undefined, variables: payload.variables ?? undefined, extensions: payload.extensions ?? undefined } };
          edge.graphql = graphql;
          const answered = (status: number) => finishEdge(steps, edge, { status, streaming: true, text: async () => '' });
          // No fetch `request` here, as in yoga's graphql-ws recipe: yoga's HTTP-only checks
          // (such as "mutations need POST") look for one and stay out of the socket's way.
          const frame: RequestFrame = { requestId, audit, edge: edge as RequestFrame['edge'] };
          const initialContext = { frame, params: graphql.params };
          const { schema, parse, validate, execute, subscribe, contextFactory } = yoga.getEnveloped(initialContext as typeof initialContext & YogaInitialContext);
          try {
            await runEdge(steps, edge);
          } catch (err) {
            const error = asDomainError(err, requestId);
            await answered(error.status);
            // An operation's refusal (its access, its input) is its result, as over HTTP.
            if (refusesOperation(edge)) {
              const refused: ExecutionResult = { data: null, errors: [toGraphQLError(error, requestId)] };
              const rootValue: RootValue = { execute, subscribe, requestId, audit, id, socket: ctx.extra.socket, query: payload.query, refused };
              return { schema, document: graphql.document!, operationName: payload.operationName, variableValues: payload.variables, contextValue: {}, rootValue } satisfies ExecutionArgs;
            }
            // A key revoked since the connection opened (or now refused) closes the connection.
            if (endsConnection(error) || !(err instanceof DomainError)) refuse(ctx.extra.socket, err);
            return [toGraphQLError(error, requestId)];
          }
          await answered(200);
          const contextValue = await contextFactory();
          let document: DocumentNode;
          try {
            document = graphql.document ?? parse(payload.query);
          } catch (err) {
            if (!(err instanceof GraphQLError)) throw err;
            return contractErrors([err], requestId);
          }
          const operation = getOperationAST(document, payload.operationName);
          if (!operation) return contractErrors([new GraphQLError('Could not determine what operation to execute.')], requestId);
          const errors = validate(schema, document);
          if (errors.length) return contractErrors(errors, requestId);
          const rootValue: RootValue = { execute, subscribe, requestId, audit, id, socket: ctx.extra.socket, query: payload.query };
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

      onClose(ctx, code, reason) {
        log.info({ ...connectionFields(ctx.extra), code, reason: reason || undefined, duration_ms: ctx.extra.openedAt === undefined ? undefined : Math.round(performance.now() - ctx.extra.openedAt) }, 'websocket closed');
      },

      // Run in the operation's request scope, so masked errors carry its request id.
      execute: (args) => {
        const root = args.rootValue as RootValue;
        if (root.refused) return root.refused;
        return requestScope.run({ requestId: root.requestId, audit: root.audit }, () => root.execute(args));
      },
      subscribe: async (args) => {
        const root = args.rootValue as RootValue;
        if (root.refused) return root.refused;
        const scope = { requestId: root.requestId, audit: root.audit };
        const result = await requestScope.run(scope, () => root.subscribe(args));
        if (!isAsyncIterable(result)) return result;
        // A live event stream set up by its operation (checks passed): joins the shared
        // fan-out. Its own pipeline is never iterated, so it never listens; it is closed now
        // rather than held by each subscriber while connected (about 5 KB each: the idle
        // iterators of envelop, graphql-js and yoga around the topic's stream).
        const live = liveEventStreamOf(args.contextValue);
        const pubsub = (args.contextValue as Partial<GraphQLContext>).pubsub;
        if (live && pubsub) {
          await requestScope.run(scope, async () => result[Symbol.asyncIterator]().return?.());
          return counted(fanoutOf(pubsub).join(live, args, scope), options.metrics);
        }
        return counted(inRequestScope(scope, result), options.metrics);
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

// ------------------------------------------------------------------ shared fan-out

/** One graphql-ws subscription to a live event stream. */
interface FanoutSubscriber {
  live: LiveEventStream;
  /** Subscribers of one group receive the very same result of an event (see groupKey). */
  group: string;
  args: ExecutionArgs;
  scope: RequestScope;
  root: RootValue;
  /** Hands a result to graphql-ws's own loop (errors: onNext gives them the contract's extensions). */
  deliver(result: ExecutionResult): void;
  end(): void;
}

/**
 * Live events to every graphql-ws subscriber of a topic from ONE listener per topic, instead
 * of a pipeline per subscriber (a queue, a filter, an execution, a serialization each).
 * For each event, each subscriber's own filter decides (the one its operation returned after
 * its checks); the event's result is executed and serialized once per group of subscribers
 * that would get the same answer: the same topic (business and environment), the same
 * document, operation and variables, and the same kind of key with the same permissions. The
 * frame is then written to each socket. A result with errors is not shared: each subscriber
 * executes it in its own request scope, masked as over HTTP, and graphql-ws sends it.
 */
class EventFanout {
  private readonly topics = new Map<string, { subscribers: Set<FanoutSubscriber>; stop(): void }>();

  constructor(private readonly pubsub: EventPubSub) {}

  join(live: LiveEventStream, args: ExecutionArgs, scope: RequestScope): AsyncGenerator<ExecutionResult> {
    const root = args.rootValue as RootValue;
    const queue: ExecutionResult[] = [];
    let waiting: ((r: IteratorResult<ExecutionResult>) => void) | null = null;
    let done = false;
    const subscriber: FanoutSubscriber = {
      live,
      group: groupKey(live, args, root),
      args,
      scope,
      root,
      deliver(result) {
        if (done) return;
        if (waiting) {
          const w = waiting;
          waiting = null;
          w({ value: result, done: false });
        } else queue.push(result);
      },
      end() {
        if (done) return;
        done = true;
        waiting?.({ value: undefined, done: true });
        waiting = null;
      },
    };
    this.add(subscriber);
    const finish = async () => {
      subscriber.end();
      this.remove(subscriber);
      return { value: undefined, done: true as const };
    };
    const generator: AsyncGenerator<ExecutionResult> = {
      next: () => {
        if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (waiting = resolve));
      },
      return: finish,
      throw: async (err) => {
        await finish();
        throw err;
      },
      [Symbol.asyncIterator]: () => generator,
      [Symbol.asyncDispose]: async () => void (await finish()),
    };
    return generator;
  }

  private add(subscriber: FanoutSubscriber) {
    const name = subscriber.live.topic;
    let topic = this.topics.get(name);
    if (!topic) {
      const subscribers = new Set<FanoutSubscriber>();
      const source = this.pubsub.subscribe(name)[Symbol.asyncIterator]();
      let stopped = false;
      topic = { subscribers, stop: () => { stopped = true; void source.return?.(); } };
      this.topics.set(name, topic);
      void (async () => {
        try {
          for (;;) {
            const next = await source.next();
            if (next.done || stopped) break;
            await this.publish(next.value, subscribers);
          }
        } catch (err) {
          log.error({ err }, 'live event fan-out failed');
        } finally {
          if (this.topics.get(name)?.subscribers === subscribers) this.topics.delete(name);
          for (const s of subscribers) s.end();
        }
      })();
    }
    topic.subscribers.add(subscriber);
  }

  private remove(subscriber: FanoutSubscriber) {
    const topic = this.topics.get(subscriber.live.topic);
    if (!topic?.subscribers.delete(subscriber) || topic.subscribers.size > 0) return;
    this.topics.delete(subscriber.live.topic);
    topic.stop();
  }

  /** One event to every subscriber of its topic whose filter it passes. */
  private async publish(event: PresentedEvent, subscribers: Set<FanoutSubscriber>) {
    /** Per group: the serialized result, or null when it has errors (not shared). */
    const shared = new Map<string, string | null>();
    for (const s of [...subscribers]) {
      let passes: boolean;
      try {
        passes = s.live.passes(event);
      } catch (err) {
        log.error({ err }, 'live event filter failed');
        continue;
      }
      if (!passes) continue;
      let json = shared.get(s.group);
      if (json === undefined) {
        const result = await executeFor(s, event);
        json = result.errors?.length ? null : JSON.stringify(result);
        shared.set(s.group, json);
        if (json === null) {
          s.deliver(maskErrors(result, s.root.requestId));
          continue;
        }
      } else if (json === null) {
        s.deliver(maskErrors(await executeFor(s, event), s.root.requestId));
        continue;
      }
      const socket = s.root.socket;
      // As graphql-ws writes a `next` message: {"id","type","payload"} in this order.
      if (socket.readyState === WebSocket.OPEN) socket.send(`{"id":${JSON.stringify(s.root.id)},"type":"next","payload":${json}}`);
    }
  }
}

/**
 * What decides a subscriber's result besides the event: the topic (business, environment),
 * the document, operation and variables, and the key's kind and permissions (so a rule that
 * depends on them still holds per subscriber).
 */
function groupKey(live: LiveEventStream, args: ExecutionArgs, root: RootValue): string {
  const principal = (args.contextValue as Partial<GraphQLContext>).domain?.principal;
  const permissions = !principal ? '-' : principal.permissions === 'all' ? 'all' : [...principal.permissions].sort().join(',');
  return JSON.stringify([live.topic, principal?.keyKind ?? '-', permissions, root.query, args.operationName ?? null, args.variableValues ?? null]);
}

/**
 * The subscription's selection on one event: GraphQL's own `execute` with the event as root,
 * which is what graphql-js's `subscribe` runs for each event of a source stream. The edge's
 * steps and the envelope's checks ran once, when the operation subscribed, as for any
 * subscription.
 */
async function executeFor(s: FanoutSubscriber, event: PresentedEvent): Promise<ExecutionResult> {
  return requestScope.run(s.scope, async () => executeGraphQL({ ...s.args, rootValue: event }));
}

/** Errors of an event's execution masked as over HTTP (maskError). */
function maskErrors(result: ExecutionResult, requestId: string): ExecutionResult {
  if (!result.errors?.length) return result;
  return { ...result, errors: result.errors.map((error) => maskError(error, requestId) as GraphQLError) };
}

/** GraphQL's own errors with the contract's extensions, as over HTTP; yoga's HTTP hints mean nothing here. */
const contractErrors = (errors: readonly GraphQLError[], requestId: string) => withContractExtensions(errors, requestId, { dropHttp: true });

/** A connection's facts for its log lines: never the credential, only the key's id. */
function connectionFields(extra: Partial<ConnectionExtra>) {
  if (!extra.connectionId) {
    extra.connectionId = newId('request');
    extra.openedAt = performance.now();
  }
  const p = extra.principal;
  return { connection_id: extra.connectionId, key_id: p?.keyId, business_id: p?.businessId, livemode: p?.livemode };
}

/** A subscription's stream, counted open (graphql_subscriptions_open) from now until it ends, however it ends. */
function counted<T>(stream: AsyncGenerator<T>, metrics: Metrics | undefined): AsyncGenerator<T> {
  if (!metrics) return stream;
  const closed = metrics.subscriptionOpened('websocket');
  const generator: AsyncGenerator<T> = {
    next: async (...args) => {
      const step = await stream.next(...args);
      if (step.done) closed();
      return step;
    },
    return: async (value) => {
      closed();
      return stream.return(value);
    },
    throw: async (err) => {
      closed();
      return stream.throw(err);
    },
    [Symbol.asyncIterator]: () => generator,
    [Symbol.asyncDispose]: async () => void (await generator.return(undefined)),
  };
  return generator;
}

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
    [Symbol.asyncDispose]: async () => void (await generator.return(undefined)),
  };
  return generator;
}
