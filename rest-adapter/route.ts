import type { DomainContext } from '../src/domain/shared/context.ts';
import type { Operation } from '../src/domain/shared/operation.ts';
import type { EdgeAnswer, EdgeRequest } from '../src/http/edge/runner.ts';

/**
 * The REST contract as tables keyed by schema coordinates: each /v1 path runs one GraphQL
 * field through the same pipeline as /graphql. No rule lives here: a route says where the
 * field's arguments come from; the field's operation declares access, input, errors and docs.
 */
export type ReleaseStage = 'first_release' | 'later_scope';

/**
 * A route on its way out of /v1 (docs/versioning.md): its answers carry `Deprecation` (RFC
 * 9745) and `Sunset` (RFC 8594) headers, and the OpenAPI document marks it deprecated.
 */
export interface Deprecation {
  /** The day it was deprecated (YYYY-MM-DD), as CHANGELOG.md announced it. */
  since: string;
  /** The day after which it may stop answering (YYYY-MM-DD), at least six months after `since`. */
  sunset: string;
  /** What to call instead, e.g. `GET /v1/availability`. */
  use: string;
}

interface RouteBase {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** Success status (default 200). */
  status?: number;
  stage: ReleaseStage;
  deprecated?: Deprecation;
}

export interface JsonRoute extends RouteBase {
  /** Schema coordinate run by this route, e.g. `Mutation.createBooking`. */
  field: `Query.${string}` | `Mutation.${string}`;
  /** Argument → `path.<name>` or `body`; unlisted arguments come from query parameters. */
  args?: Record<string, `path.${string}` | 'body'>;
  /**
   * The fields of this route's success answer that differ from the example of the object it
   * answers (rest-adapter/examples.ts), e.g. `{ state: 'canceled' }` for a cancel; for a
   * route that answers an error (`answersError`), the fields of that error's example.
   */
  answerExample?: Record<string, unknown>;
  /** A simulation whose answer is always this error (the sandbox's declined payment). */
  answersError?: { status: number; code: string };
}

/**
 * A route whose body or answer is not JSON (a file upload, a CSV export): it answers itself,
 * behind the same edge (authentication, access of its operation, rate limit, idempotency,
 * audit).
 */
export interface HandlerRoute extends RouteBase {
  operation: Operation;
  /** The answer's media type, for the OpenAPI document. */
  produces: string;
  /** The success answer per media type, for the OpenAPI document: its schema and an example (default: `produces`, a string). */
  answers?: Record<string, { schema: Record<string, unknown>; example?: unknown }>;
  handler(context: { domain: DomainContext; request: EdgeRequest; params: Record<string, string>; body: string }): Promise<EdgeAnswer>;
}

export type RestRoute = JsonRoute | HandlerRoute;

export const isHandlerRoute = (route: RestRoute): route is HandlerRoute => 'handler' in route;
