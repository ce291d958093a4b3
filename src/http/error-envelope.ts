import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../db/connection-errors.ts';
import { isTransactionConflict } from '../db/database-errors.ts';
import { CommonErrors } from '../domain/shared/common.errors.ts';
import { DomainError, type ErrorType } from '../domain/shared/errors.ts';
import { EdgeErrors } from './edge.errors.ts';
import { GRAPHQL_PATH, jsonAnswer, type EdgeAnswer, type EdgeContext } from './edge/runner.ts';
import { log } from '../log.ts';

export interface ErrorBody {
  error: { type: ErrorType; code: string; message: string; request_id: string; param?: string; [detail: string]: unknown };
}

/** The contract's envelope for a domain error: type, code, message, request id, then `param` and the error's details. */
export function envelope(error: DomainError, requestId: string): { status: number; body: ErrorBody } {
  return { status: error.status, body: { error: { type: error.type, code: error.code, message: error.message, request_id: requestId, ...extras(error) } } };
}

function extras(error: DomainError) {
  return { ...(error.param !== undefined ? { param: error.param } : {}), ...error.details };
}

export const internalError = () => CommonErrors.internal();

/** GraphQL `extensions` of a domain error: the same type, code, param, details and request id. */
export function errorExtensions(error: DomainError, requestId: string) {
  return { type: error.type, code: error.code, request_id: requestId, status: error.status, ...extras(error) };
}

/** A domain error in GraphQL's shape, keeping the error itself for the REST adapter (never serialized). */
export function toGraphQLError(error: DomainError, requestId: string, at?: Pick<GraphQLError, 'nodes' | 'path'>): GraphQLError {
  return new GraphQLError(error.message, { nodes: at?.nodes, path: at?.path, originalError: error, extensions: errorExtensions(error, requestId) });
}

/** An error answer: the envelope, or (`graphql`) the same error in GraphQL's shape. */
export function errorAnswer(error: DomainError, requestId: string, graphql: boolean): EdgeAnswer {
  const headers: Record<string, string> = error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
  if (graphql) return jsonAnswer(error.status, { errors: [{ message: error.message, extensions: errorExtensions(error, requestId) }] }, headers);
  const e = envelope(error, requestId);
  return jsonAnswer(e.status, e.body, headers);
}

/** A refusal of a request by the edge: the envelope, or GraphQL's error shape for a request to GraphQL. */
export function refusalAnswer(ctx: EdgeContext, err: unknown): EdgeAnswer {
  return errorAnswer(asDomainError(err, ctx.requestId), ctx.requestId, ctx.kind !== 'rest' && ctx.request.pathname === GRAPHQL_PATH);
}

/** Anything thrown at the edge as a domain error: an unexpected one is logged once and answered as internal_error. */
export function asDomainError(err: unknown, requestId: string): DomainError {
  if (err instanceof DomainError) return err;
  const fault = databaseFault(err, requestId);
  if (fault) return fault;
  // A client that hung up aborts its request: nothing failed on our side.
  if ((err as Error | null)?.name !== 'AbortError') log.error({ request_id: requestId, err }, 'request failed');
  return internalError();
}

/**
 * A failure of the database that is no bug and passes (the contract's "never a 500"): the
 * connection lost or refused (a restart), or a transaction the database kept aborting for
 * concurrent ones after the tenant scope's retries (src/db/transaction-retry.ts). Answered 503
 * with Retry-After; logged as a warning, once. Null for anything else.
 */
export function databaseFault(err: unknown, requestId: string): DomainError | null {
  const fault = isTransactionConflict(err) ? CommonErrors.transactionConflict() : isDatabaseUnavailable(err) ? CommonErrors.databaseUnavailable() : null;
  if (fault) log.warn({ request_id: requestId, code: fault.code, reason: (err as Error | null)?.message?.trim().split('\n').at(-1) }, 'request failed: the database is unavailable or contended');
  return fault;
}

/**
 * GraphQL's own refusals (a document that does not parse or validate, a variable its type
 * rejects) as the contract's errors. GraphQL gives them no codes, so its messages are read
 * here, once; a refusal that carries a contract code already (graphql-armor's, stamped by
 * src/http/edge/use-armor.ts) keeps it.
 */
export function classifyGraphQLError(error: GraphQLError): DomainError {
  const ext = (error.extensions ?? {}) as { code?: string };
  if (typeof ext.code === 'string' && ext.code in CONTRACT_CODES) return CONTRACT_CODES[ext.code](error.message);
  const inputProblem = /^Variable "\$|^Expected value of type|^Expected type|cannot represent|^Argument "\w+" of required type|^Int cannot|^String cannot|^Boolean cannot|^Float cannot|^ID cannot/.test(error.message);
  return inputProblem ? CommonErrors.parameterInvalid(graphqlParam(error), error.message) : EdgeErrors.graphqlValidationFailed(error.message);
}

const CONTRACT_CODES: Record<string, (message: string) => DomainError> = {
  query_too_deep: (m) => EdgeErrors.queryTooDeep(m),
  too_many_aliases: (m) => EdgeErrors.tooManyAliases(m),
  query_too_costly: (m) => EdgeErrors.queryTooCostly(m),
  document_too_large: (m) => EdgeErrors.documentTooLarge(m),
};

/** The field a GraphQL input error names, as REST names it (`delivery_options.0.fee_cents`), else the variable or argument. */
function graphqlParam(error: GraphQLError): string {
  const nested = / at "\w+\.([\w.[\]]+)"(?:; Field "(\w+)" (?:of required type|is not defined))?/.exec(error.message);
  if (nested) return [nested[1].replace(/\[(\d+)\]/g, '.$1'), nested[2]].filter(Boolean).join('.').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return /Variable "\$([\w.[\]]+)"/.exec(error.message)?.[1] ?? /Argument "(\w+)"/.exec(error.message)?.[1] ?? 'variables';
}
