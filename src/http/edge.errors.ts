import { errorCatalogue } from '../domain/shared/errors.ts';

/** Refusals of the edge: routing, the body, rate limits, idempotency and GraphQL's own checks. */
export const EdgeErrors = errorCatalogue('request', {
  componentsNotBuilt: {
    type: 'internal_error',
    code: 'embed_components_not_built',
    status: 503,
    description: 'The embedded booking components were not built on this server (dist/embed is missing): `npm start` builds them, as does `node scripts/build.mjs`.',
    build: () => ({ message: 'The embedded booking components are not built on this server: run `node scripts/build.mjs` (npm start runs it).' }),
  },
  routeNotFound: {
    type: 'invalid_request',
    code: 'route_not_found',
    status: 404,
    description: 'No operation has this path.',
    build: (method: string, path: string) => ({ message: `Unrecognized request URL (${method} ${path}).` }),
  },
  requestTargetInvalid: {
    type: 'invalid_request',
    code: 'request_target_invalid',
    description: 'The request\'s Host header and target do not make a URL (a malformed host, say).',
    build: () => ({ message: 'The request\'s Host header and target do not make a valid URL.' }),
  },
  methodNotAllowed: {
    type: 'invalid_request',
    code: 'method_not_allowed',
    status: 405,
    description: 'The path exists but not with this HTTP method; the Allow header lists the methods it takes. Mutations over the WebSocket answer it too (send them with POST /graphql).',
    build: (message: string) => ({ message }),
  },
  invalidJson: {
    type: 'invalid_request',
    code: 'invalid_json',
    description: 'The body is not a JSON object.',
    build: (message = 'The request body is not valid JSON.') => ({ message }),
  },
  nestingTooDeep: {
    type: 'invalid_request',
    code: 'nesting_too_deep',
    description: 'The input nests objects or arrays deeper than 32 levels.',
    build: (limit: number) => ({ message: `The input nests objects or arrays deeper than ${limit} levels.` }),
  },
  payloadTooLarge: {
    type: 'invalid_request',
    code: 'payload_too_large',
    status: 413,
    description: 'The body is larger than 1 MiB.',
    build: (limit: number) => ({ message: `The request body exceeds ${limit} bytes.` }),
  },
  unsupportedMediaType: {
    type: 'invalid_request',
    code: 'unsupported_media_type',
    status: 415,
    description: 'The body is sent with a Content-Type this path does not read (JSON: application/json).',
    build: (contentType: string, accepted: string) => ({ message: `Content-Type '${contentType}' is not supported here; send ${accepted}.` }),
  },
  rateLimited: {
    type: 'rate_limit_error',
    code: 'rate_limited',
    description: "Too many requests for this key in the current second (or, on an invitation's accept link, from this address or for this invitation in the current minute); retry after Retry-After seconds.",
    build: (limit: number, resetSeconds: number, per = 'for this key', window = 'second') => ({ message: `Too many requests ${per}: ${limit} per ${window}. Retry after ${resetSeconds} s.` }),
  },
  idempotencyKeyInvalid: {
    type: 'validation_error',
    code: 'idempotency_key_invalid',
    description: 'The Idempotency-Key header is not 1 to 255 printable ASCII characters.',
    build: () => ({ message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.', param: 'Idempotency-Key' }),
  },
  idempotencyKeyReused: {
    type: 'conflict',
    code: 'idempotency_key_reused',
    description: 'The Idempotency-Key was first used with another method, path or body.',
    build: (method: string, path: string) => ({ message: `Keys for idempotent requests can only be used with the same method, path and body as the first request (${method} ${path}).` }),
  },
  idempotencyKeyInUse: {
    type: 'conflict',
    code: 'idempotency_key_in_use',
    description: 'A request with this Idempotency-Key is still running; retry after it completes.',
    build: () => ({ message: 'A request with this Idempotency-Key is still being processed. Retry after it completes.' }),
  },
  graphqlValidationFailed: {
    type: 'invalid_request',
    code: 'graphql_validation_failed',
    description: 'The GraphQL document does not parse or does not validate against the schema.',
    build: (message: string) => ({ message }),
  },
  queryTooDeep: {
    type: 'invalid_request',
    code: 'query_too_deep',
    description: 'The GraphQL document nests selections, or brackets, braces and parentheses, deeper than allowed (see the GraphQL limits in the docs).',
    build: (message: string) => ({ message }),
  },
  tooManyAliases: {
    type: 'invalid_request',
    code: 'too_many_aliases',
    description: 'The GraphQL document uses more aliases than allowed.',
    build: (message: string) => ({ message }),
  },
  queryTooCostly: {
    type: 'invalid_request',
    code: 'query_too_costly',
    description: 'The GraphQL document would cost more than allowed to answer (fields, depth and list sizes counted).',
    build: (message: string) => ({ message }),
  },
  documentTooLarge: {
    type: 'invalid_request',
    code: 'document_too_large',
    description: 'The GraphQL document has more tokens or directives than allowed.',
    build: (message: string) => ({ message }),
  },
});
