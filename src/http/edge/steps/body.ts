import { EdgeErrors } from '../../edge.errors.ts';
import type { EdgeStep } from '../runner.ts';

const GRAPHQL_BODY_TYPES = ['application/json', 'application/graphql-response+json', 'application/graphql+json', 'application/graphql'];

/**
 * Reads an HTTP request's body once, refusing more than `limit` bytes (413) whatever
 * Content-Length says, and bodies GraphQL cannot read (415 in the contract's shape, not an
 * empty answer). A graphql-ws operation has no HTTP body (its message is its parameters).
 */
export function bodyStep(limit: number): EdgeStep {
  return {
    name: 'body',
    run(ctx) {
      const { method } = ctx.request;
      if (ctx.transport !== 'http' || ctx.kind === 'graphiql' || method === 'GET' || method === 'HEAD') return;
      if (ctx.kind === 'graphql' && method === 'POST') {
        const type = (ctx.request.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
        if (!GRAPHQL_BODY_TYPES.includes(type)) throw EdgeErrors.unsupportedMediaType(type || '(none)', 'application/json');
      }
      return ctx.request.bytes(limit).then((bytes) => void (ctx.body = bytes.toString('utf8')));
    },
  };
}
