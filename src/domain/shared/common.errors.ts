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
