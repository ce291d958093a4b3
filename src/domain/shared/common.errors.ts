import { errorCatalogue } from './errors.ts';

/** Errors every aggregate answers: unknown objects, bad parameters, lifecycle refusals. */
export const CommonErrors = errorCatalogue('common', {
  resourceMissing: {
    type: 'invalid_request',
    code: 'resource_missing',
    status: 404,
    description: "No such object in the caller's business and environment. Another business's or environment's id answers exactly like an unknown one.",
    build: (resource: string, id: string, param?: string) => ({ message: `No such ${resource}: '${id}'`, param }),
  },
  parameterInvalid: {
    type: 'validation_error',
    code: 'parameter_invalid',
    description: 'A parameter has the wrong type, format or value; `param` names it (dotted for nested fields).',
    build: (param: string, message: string) => ({ message, param }),
  },
  parameterMissing: {
    type: 'validation_error',
    code: 'parameter_missing',
    description: 'A required parameter was not sent; `param` names it.',
    build: (param: string) => ({ message: `Missing required param: ${param}.`, param }),
  },
  parameterUnknown: {
    type: 'validation_error',
    code: 'parameter_unknown',
    description: 'A parameter the operation does not take (often a typo); `param` names it.',
    build: (param: string) => ({ message: `Received unknown parameter: ${param}.`, param }),
  },
  invalidStateTransition: {
    type: 'conflict',
    code: 'invalid_state_transition',
    description:
      "The object's state does not allow the action (or it changed while the request ran). `current_state` is its state now; `object` its type. Read it again and decide.",
    details: ['object', 'current_state'],
    build: (object: string, currentState: string, message: string) => ({ message, details: { object, current_state: currentState } }),
  },
  transactionConflict: {
    type: 'internal_error',
    code: 'transaction_conflict',
    status: 503,
    retryAfterSeconds: 1,
    description:
      'Concurrent requests kept changing the same objects: the database aborted this request\'s transaction (a deadlock or a serialization failure) each time the service retried it. Nothing was changed. Retry after Retry-After seconds, with the same Idempotency-Key.',
    build: () => ({ message: 'Concurrent requests kept changing the same objects, and this request could not complete; nothing was changed. Retry after the Retry-After header\'s seconds.' }),
  },
  databaseUnavailable: {
    type: 'internal_error',
    code: 'database_unavailable',
    status: 503,
    retryAfterSeconds: 1,
    description:
      'The database could not be reached or did not answer in time, or the connection to it was lost (it is restarting, say). The service reconnects by itself: retry after Retry-After seconds, with the same Idempotency-Key. A write whose answer was lost this way is either whole or absent, never partial.',
    build: () => ({ message: 'The database is unavailable right now. Retry after the Retry-After header\'s seconds.' }),
  },
  internal: {
    type: 'internal_error',
    code: 'internal_error',
    description: 'Something failed on our side. Retry later; the request id identifies the failure to support.',
    build: () => ({ message: 'Something went wrong on our side. Retry later; the request id identifies it to support.' }),
  },
});

/** Unknown ids, and ids of another business or environment, answer alike. */
export const resourceMissing = CommonErrors.resourceMissing;

/** A bad value; `param` is the contract's name of the field (snake_case, dotted). */
export const validationError = (param: string, message: string) => CommonErrors.parameterInvalid(param, message);
