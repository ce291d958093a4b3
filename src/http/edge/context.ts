import type { Plugin } from 'graphql-yoga';
import type { Principal } from '../../domain/access/permissions.ts';
import type { DomainError } from '../../domain/shared/errors.ts';
import type { Operation } from '../../domain/shared/operation.ts';
import { asDomainError, errorResponse } from '../error-envelope.ts';
import type { RateDecision } from '../rate-limit.ts';
import type { AuditTrail } from '../request-scope.ts';

/** How a request is served, decided by the routing plugin before anything else. */
export type RequestKind = 'rest' | 'graphql' | 'graphiql';

/** The REST route a request matched, with its path parameters (rest-adapter/adapter.ts). */
export interface MatchedRoute {
  method: string;
  path: string;
  params: Record<string, string>;
  operation: Operation | null;
  /** Run a request of this route once the edge admitted it. */
  serve(request: Request, url: URL, body: string, context: ServerContext): Promise<Response>;
  /** JSON routes: the same run, answered as a status and a JSON body (null: the route answers itself). */
  answer: ((target: RestTarget, body: string, context: ServerContext) => Promise<JsonAnswer>) | null;
}

/** What a JSON route reads of its request besides the body: path, query, and the URL it was reached at (for links it hands out). */
export interface RestTarget {
  pathname: string;
  searchParams: URLSearchParams;
  request: { readonly url: string };
}

export interface JsonAnswer {
  status: number;
  body: unknown;
}

/**
 * What the edge knows about one request, over HTTP (REST and GraphQL) and the WebSocket alike.
 * Plugins fill it in order: kind and route, body, principal, rate, idempotency; the audit
 * trail is filled while the operation runs.
 */
export interface ServerContext {
  requestId: string;
  audit: AuditTrail;
  kind?: RequestKind;
  route?: MatchedRoute;
  /** The request body, read once (bounded). */
  body?: string;
  principal?: Principal;
  rate?: RateDecision;
  idempotencyKey: string | null;
  /** Headers every answer of this request carries (Request-Id, RateLimit-*, Allow, Retry-After). */
  headers: Record<string, string>;
  /** Run when the request is answered, however it ends (releases what a plugin holds). */
  finally: (() => Promise<void> | void)[];
  /** Only on the WebSocket: the connection's credential and host. */
  connection?: { authorization: string | null; hostEnvironment: 'live' | 'test' | null; opsSession?: string | null };
  /** Only over HTTP: what the access log and the metrics read once the request is answered (src/http/observe.ts). */
  record?: RequestRecord;
}

/**
 * The facts of an HTTP request the access log and the metrics need, in an object of its own:
 * the pipeline works on a copy of the server context (yoga's adapter copies its properties),
 * so what its steps learn (the caller, the route) is copied here when it answers.
 */
export interface RequestRecord {
  principal?: Principal;
  route?: MatchedRoute;
  kind?: RequestKind;
  /** GraphQL: the operation's type and name (`query NewestBookings`; `anonymous` without one). */
  operation?: string;
}

export type EdgePlugin = Plugin<Record<string, unknown>, ServerContext>;

/**
 * An `onRequest` step that may refuse: a thrown error ends the request with its envelope
 * (in GraphQL's shape on /graphql), so later steps and the operation never run. A step that
 * has nothing to wait for stays synchronous (no promise hop on the hot path).
 */
type StepPayload = { request: Request; url: URL; serverContext: ServerContext; setRequest(r: Request): void; endResponse(r: Response): void };
export function refusing(step: (payload: StepPayload) => Promise<Response | void> | Response | void) {
  return (payload: StepPayload): Promise<void> | void => {
    let result: Promise<Response | void> | Response | void;
    try {
      result = step(payload);
    } catch (err) {
      return refuse(payload, err);
    }
    if (result instanceof Promise) return result.then((response) => answer(payload, response), (err) => refuse(payload, err));
    answer(payload, result);
  };
}

function answer(payload: StepPayload, response: Response | void): void {
  if (response) payload.endResponse(response);
}

function refuse(payload: StepPayload, err: unknown): void {
  const error: DomainError = asDomainError(err, payload.serverContext.requestId);
  payload.endResponse(errorResponse(error, payload.serverContext.requestId, payload.serverContext.kind !== 'rest' && payload.url.pathname === '/graphql'));
}

/** `value`, or what `value` resolves to, handed to `then` without a promise hop when it is already there. */
export function whenReady<T, R>(value: T | Promise<T>, then: (v: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}
