/**
 * Typed domain errors. Every expected failure is one of these, with a stable `code` that
 * integrations switch on; the edge (src/http/error-envelope.ts) maps `type` to an HTTP status
 * once, for REST and GraphQL alike (CONTRACT.md "Errors").
 */
export type ErrorType =
  | 'authentication_error'
  | 'authorization_error'
  | 'invalid_request'
  | 'validation_error'
  | 'conflict'
  | 'rate_limit_error'
  | 'payment_error'
  | 'integration_error'
  | 'internal_error';

export class DomainError extends Error {
  readonly type: ErrorType;
  readonly code: string;
  readonly param?: string;
  /** Only for the few codes whose status differs from their type's (404, 405, 413). */
  readonly status?: number;

  constructor(type: ErrorType, code: string, message: string, options: { param?: string; status?: number } = {}) {
    super(message);
    this.name = 'DomainError';
    this.type = type;
    this.code = code;
    this.param = options.param;
    this.status = options.status;
  }
}

/** Unknown ids, and ids of another business or environment, answer alike. */
export function resourceMissing(resource: string, id: string, param?: string): DomainError {
  return new DomainError('invalid_request', 'resource_missing', `No such ${resource}: '${id}'`, { status: 404, param });
}

export function validationError(param: string, message: string, code = 'parameter_invalid'): DomainError {
  return new DomainError('validation_error', code, message, { param });
}

export function conflict(code: string, message: string): DomainError {
  return new DomainError('conflict', code, message);
}
