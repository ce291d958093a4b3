import { GraphQLError } from 'graphql';
import { DomainError, type ErrorType } from '../domain/shared/errors.ts';

/** HTTP status of each error type (CONTRACT.md "Errors"); a few codes carry their own. */
export const STATUS_BY_TYPE: Record<ErrorType, number> = {
  authentication_error: 401,
  authorization_error: 403,
  invalid_request: 400,
  validation_error: 422,
  conflict: 409,
  rate_limit_error: 429,
  payment_error: 402,
  integration_error: 502,
  internal_error: 500,
};

export interface ErrorBody {
  error: { type: ErrorType; code: string; message: string; request_id: string; param?: string };
}

export interface ApiError {
  status: number;
  body: ErrorBody;
}

export function statusOf(error: DomainError): number {
  return error.status ?? STATUS_BY_TYPE[error.type];
}

/** The contract's envelope for a domain error. */
export function envelope(error: DomainError, requestId: string): ApiError {
  const body: ErrorBody = { error: { type: error.type, code: error.code, message: error.message, request_id: requestId } };
  if (error.param !== undefined) body.error.param = error.param;
  return { status: statusOf(error), body };
}

export function internalError(): DomainError {
  return new DomainError('internal_error', 'internal_error', 'Something went wrong on our side. Retry later; the request id identifies it to support.');
}

/** GraphQL `extensions` of a domain error: the same type, code, param and request id. */
export function errorExtensions(error: DomainError, requestId: string) {
  return { type: error.type, code: error.code, request_id: requestId, status: statusOf(error), ...(error.param ? { param: error.param } : {}) };
}

/** Read a domain error back from a GraphQL error produced by `errorExtensions`. */
export function domainErrorFromGraphQL(error: GraphQLError): DomainError {
  const ext = error.extensions as { type?: ErrorType; code?: string; param?: string; status?: number };
  if (ext.type && ext.code) return new DomainError(ext.type, ext.code, error.message, { param: ext.param, status: ext.status });
  return new DomainError('invalid_request', 'graphql_error', error.message);
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}
