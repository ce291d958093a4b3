import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import type { Principal } from '../../domain/access/permissions.ts';
import type { Operation } from '../../domain/shared/operation.ts';
import type { DomainError } from '../../domain/shared/errors.ts';
import type { IdempotentRequest } from '../../domain/shared/idempotent-calls.ts';
import type { ClientAddress } from '../client-address.ts';
import type { RateDecision } from '../rate-limit.ts';
import type { AuditTrail } from '../request-scope.ts';
import type { Deprecation } from '../../../rest-adapter/route.ts';

/*
 * The edge: one ordered list of steps (src/http/edge/steps.ts) that every request passes,
 * whatever brought it: the Node server's own path (src/http/transports/node.ts), yoga's
 * pipeline for GraphQL over HTTP and SSE (src/http/transports/yoga.ts) and graphql-ws
 * (src/http/websocket.ts). A transport only turns its request into an `EdgeRequest`, calls
 * `runEdge`, and writes the answer after `finishEdge`. A rule added as a step holds on all of them.
 */

/** Where GraphQL is served (over HTTP, SSE and graphql-ws); its refusals keep GraphQL's error shape. */
export const GRAPHQL_PATH = '/graphql';

/** How a request is served, decided by routing. */
export type RequestKind = 'rest' | 'graphql' | 'graphiql' | 'embed';

/** What brought the request: an HTTP request (REST, GraphQL, SSE), or an operation of a graphql-ws connection. */
export type Transport = 'http' | 'websocket';

/** The request as every step reads it. */
export interface EdgeRequest {
  /** Upper case. */
  readonly method: string;
  /** The path, as the WHATWG URL parser reads it. */
  readonly pathname: string;
  /** The query string with its `?`, as sent ('' when none). */
  readonly search: string;
  readonly searchParams: URLSearchParams;
  /** The URL the caller reached: links the API hands out point back there. */
  readonly url: string;
  /** `scheme://host[:port]` of `url`. */
  readonly origin: string;
  /** Lower case, without the port. */
  readonly hostname: string;
  /** A header's value (`name` in lower case), or null. */
  header(name: string): string | null;
  /** The body, refusing more than `limit` bytes (413) whatever Content-Length says; empty for none. Read once. */
  bytes(limit: number): Promise<Buffer>;
  /** The address of the connection's peer, when there is a socket. */
  readonly remoteAddress: string | null;
}

/** The GraphQL request's parameters: from its body or query string, or a graphql-ws subscribe message. */
export interface GraphQLParams {
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

/** The REST route a request matched (rest-adapter/adapter.ts). */
export interface MatchedRoute {
  method: string;
  path: string;
  params: Record<string, string>;
  operation: Operation | null;
  /** Its body, when it has one, is a JSON object (else the route reads the body itself). */
  takesJson: boolean;
  /** When the route is deprecated: since when, and until when it answers. */
  deprecated?: Deprecation;
  /** Run the route for a request every step before admitted: its answer. */
  execute(ctx: EdgeContext): Promise<EdgeAnswer>;
}

/** An answer as steps and transports make it; transports write it in their own form. */
export interface EdgeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | null;
}

/** An answer as the steps' `answered` hooks see it, whichever transport made it. */
export interface AnsweredResponse {
  readonly status: number;
  /** A stream (SSE, multipart) is never read. */
  readonly streaming: boolean;
  /** The body as text (read once; the transport still sends it). */
  text(): Promise<string>;
}

/**
 * A refusal of a GraphQL operation the edge had parsed (its access, its input): answered as
 * the operation's result, `{ data: null, errors }`, as GraphQL answers its own refusals of an
 * operation, rather than as a refusal of the request.
 */
export const refusesOperation = (ctx: EdgeContext) => ctx.kind === 'graphql' && ctx.graphql?.operation !== undefined;

/** What the edge knows about one request; the steps fill it in order. */
export interface EdgeContext {
  readonly requestId: string;
  readonly transport: Transport;
  readonly request: EdgeRequest;
  readonly audit: AuditTrail;
  kind?: RequestKind;
  route?: MatchedRoute;
  /** The body as text, read once (bounded). */
  body?: string;
  /** A REST request's body parsed and checked (`{}` when empty). */
  input?: Record<string, unknown>;
  /** The GraphQL request: its parameters, then its parsed document and operation; a refusal of that operation (refusesOperation). */
  graphql?: { params: GraphQLParams; document?: DocumentNode; operation?: OperationDefinitionNode; refusal?: DomainError };
  /** The domain operations the request calls: its route's, or its GraphQL document's root fields'. */
  operations?: Operation[];
  /** The path template the request is counted and logged under (no id, nothing a client made up), set by the step that takes the path. */
  template?: string;
  /** A GraphQL request's operation as the access log names it: `query NewestBookings`, `subscription anonymous`. */
  operationLabel?: string;
  principal?: Principal;
  /** The client's address (the connection's, or a trusted proxy's X-Forwarded-For): src/http/edge/steps/client.ts. */
  client?: ClientAddress;
  rate?: RateDecision;
  /** A publishable key's request from a browser: whether its Origin is one the business allows (browser-origin). */
  browserOrigin?: 'allowed' | 'refused';
  idempotencyKey: string | null;
  /** The claim of the request's Idempotency-Key: what was committed under it (set with `idempotencyKey`). */
  idempotent?: IdempotentRequest;
  /** Headers every answer of this request carries (Request-Id, RateLimit-*, Allow, Retry-After, CORS). */
  headers: Record<string, string>;
  /** Set by the step that answers; no later step runs. */
  answer?: EdgeAnswer;
  /** Run when the request is answered, however it ends (releases what a step holds). */
  finally: (() => Promise<void> | void)[];
  /** The request's body was left unread (refused early): the connection closes after the answer. */
  closeConnection?: boolean;
  /** The index of the next step to run. */
  next: number;
}

export interface EdgeStep {
  readonly name: string;
  /** Let the request go on, answer it (`ctx.answer`), or refuse it (throw a DomainError). */
  run(ctx: EdgeContext): void | Promise<void>;
  /** Once the request is answered, however (a refusal too): for the steps that ran, in order. */
  answered?(ctx: EdgeContext, response: AnsweredResponse): void | Promise<void>;
}

/** A fresh context for a request of `transport`. */
export function edgeContext(requestId: string, transport: Transport, request: EdgeRequest, audit: AuditTrail): EdgeContext {
  return { requestId, transport, request, audit, idempotencyKey: null, headers: { 'Request-Id': requestId }, finally: [], next: 0 };
}

/**
 * Run the steps from `ctx.next` until one answers, one refuses (throws, or rejects), or the
 * list ends. Stays synchronous while the steps are: no promise hop on a request whose steps
 * have nothing to wait for.
 */
export function runEdge(steps: readonly EdgeStep[], ctx: EdgeContext): void | Promise<void> {
  for (let i = ctx.next; i < steps.length; i++) {
    if (ctx.answer) return;
    ctx.next = i + 1;
    const ran = steps[i].run(ctx);
    if (ran instanceof Promise) return ran.then(() => runEdge(steps, ctx));
  }
}

/**
 * The request is answered: the `answered` hooks of the steps that ran, in order, then what the
 * steps hold is released. Synchronous when nothing waits.
 */
export function finishEdge(steps: readonly EdgeStep[], ctx: EdgeContext, response: AnsweredResponse): void | Promise<void> {
  const ran = Math.min(ctx.next, steps.length);
  // One hook failing (the database down while the idempotency step stores its answer) must not
  // keep the others from running, nor the request from letting go of what it holds: a lease
  // renewed forever would keep its key claimed for as long as the process lives.
  let failure: { err: unknown } | null = null;
  const hook = (i: number): void | Promise<void> => {
    for (; i < ran; i++) {
      let done: void | Promise<void>;
      try {
        done = steps[i].answered?.(ctx, response);
      } catch (err) {
        failure ??= { err };
        continue;
      }
      if (done instanceof Promise)
        return done.then(
          () => hook(i + 1),
          (err: unknown) => {
            failure ??= { err };
            return hook(i + 1);
          },
        );
    }
    const rethrow = () => {
      if (failure) throw failure.err;
    };
    const released = release(ctx);
    return released ? released.then(rethrow) : rethrow();
  };
  return hook(0);
}

function release(ctx: EdgeContext): void | Promise<void> {
  if (ctx.finally.length === 0) return;
  const held = ctx.finally.splice(0);
  return Promise.all(held.map((r) => r())).then(() => undefined);
}

/**
 * `work` (running or finishing the steps), then `done()`, or `failed(err)` when it throws or
 * rejects: synchronously when `work` was, the transports' one way to wait for the steps.
 */
export function settle(work: () => void | Promise<void>, done: () => void, failed: (err: unknown) => void): void | Promise<void> {
  let pending: void | Promise<void>;
  try {
    pending = work();
  } catch (err) {
    return failed(err);
  }
  if (pending) return pending.then(done, failed);
  done();
}

/** A JSON answer with a known length (one write, not chunks). */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): EdgeAnswer {
  const text = JSON.stringify(body);
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...headers }, body: text };
}

/** An answer the transport already holds whole, as the `answered` hooks see it. */
export function answeredWhole(answer: EdgeAnswer): AnsweredResponse {
  return {
    status: answer.status,
    streaming: false,
    text: async () => (answer.body === null ? '' : typeof answer.body === 'string' ? answer.body : Buffer.from(answer.body).toString('utf8')),
  };
}

/** `value`, or what `value` resolves to, handed to `then` without a promise hop when it is already there. */
export function whenReady<T, R>(value: T | Promise<T>, then: (v: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}
