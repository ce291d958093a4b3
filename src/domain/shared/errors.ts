/**
 * Typed domain errors. Every expected failure is a `DomainError` made by an entry of an error
 * catalogue (`*.errors.ts`, one per aggregate or concern): a stable `code` that integrations
 * switch on, its `type` and HTTP status, and structured `details` where clients need facts
 * (`current_state`, `unmet_gates`). The edge (src/http/error-envelope.ts) renders them once,
 * for REST and GraphQL alike (the contract's "Errors").
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

/** HTTP status of each error type; a few codes carry their own (404, 405, 413, 415). */
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

/** Facts a client may switch on besides the code, rendered beside `param` in the error object. */
export type ErrorDetails = Record<string, string | number | boolean | null | readonly string[]>;

export class DomainError extends Error {
  readonly type: ErrorType;
  readonly code: string;
  readonly status: number;
  readonly param?: string;
  readonly details: ErrorDetails;
  /** Seconds after which the same request may succeed (the answer's Retry-After header). */
  readonly retryAfterSeconds?: number;

  constructor(definition: ErrorDefinition, message: string, options: { param?: string; details?: ErrorDetails } = {}) {
    super(message);
    this.name = 'DomainError';
    this.type = definition.type;
    this.code = definition.code;
    this.status = definition.status;
    this.retryAfterSeconds = definition.retryAfterSeconds;
    this.param = options.param;
    this.details = options.details ?? {};
  }
}

/** One code of a catalogue, as the docs and the OpenAPI document list it. */
export interface ErrorDefinition {
  code: string;
  type: ErrorType;
  status: number;
  /** When a client gets it and what to do, for the error reference. */
  description: string;
  /** The catalogue that declares it (`booking`, `access`, ...). */
  catalogue: string;
  /** Names of the `details` fields it carries. */
  details: readonly string[];
  /** A transient failure: the answer tells the client when to try again (Retry-After, in seconds). */
  retryAfterSeconds?: number;
}

interface EntrySpec<A extends unknown[]> {
  type: ErrorType;
  code: string;
  /** Only where it differs from the type's status. */
  status?: number;
  description: string;
  details?: readonly string[];
  /** A transient failure: the Retry-After its answers carry. */
  retryAfterSeconds?: number;
  build: (...args: A) => { message: string; param?: string; details?: ErrorDetails };
}

/** An entry of a catalogue: call it to make the error; `definition` describes it. */
export type ErrorEntry<A extends unknown[] = never[]> = ((...args: A) => DomainError) & { readonly definition: ErrorDefinition };

const registry = new Map<string, ErrorDefinition>();

/** Every code declared by the catalogues loaded so far, once each. */
export function registeredErrors(): ErrorDefinition[] {
  return [...registry.values()].sort((a, b) => a.code.localeCompare(b.code));
}

/** The definition of a code; throws for a code no catalogue declares. */
export function errorDefinition(code: string): ErrorDefinition {
  const found = registry.get(code);
  if (!found) throw new Error(`no catalogue declares the error code ${code}`);
  return found;
}

/**
 * Declare a catalogue. A code is declared once across all catalogues (checked at load), so
 * the error reference lists each code once and a code means one thing everywhere.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function errorCatalogue<T extends Record<string, EntrySpec<any>>>(catalogue: string, specs: T): { [K in keyof T]: ErrorEntry<Parameters<T[K]['build']>> } {
  const out: Record<string, ErrorEntry<unknown[]>> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const definition: ErrorDefinition = Object.freeze({
      code: spec.code,
      type: spec.type,
      status: spec.status ?? STATUS_BY_TYPE[spec.type],
      description: spec.description,
      catalogue,
      details: spec.details ?? [],
      ...(spec.retryAfterSeconds !== undefined ? { retryAfterSeconds: spec.retryAfterSeconds } : {}),
    });
    if (registry.has(spec.code)) throw new Error(`error code ${spec.code} is declared twice (${registry.get(spec.code)!.catalogue}, ${catalogue})`);
    registry.set(spec.code, definition);
    const make = (...args: unknown[]) => {
      const built = spec.build(...args);
      return new DomainError(definition, built.message, { param: built.param, details: built.details });
    };
    out[name] = Object.assign(make, { definition });
  }
  return out as { [K in keyof T]: ErrorEntry<Parameters<T[K]['build']>> };
}
