import { EdgeErrors } from '../../edge.errors.ts';
import type { EdgeContext, EdgeStep, GraphQLParams } from '../runner.ts';

/** A JSON-encoded parameter of a GET request (`variables`, `extensions`): an object, or absent. */
function jsonParam(text: string | null, name: string): Record<string, unknown> | undefined {
  if (text === null || text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw EdgeErrors.invalidJson(`The ${name} parameter is not valid JSON.`);
  }
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) throw EdgeErrors.invalidJson(`The ${name} parameter must be a JSON object.`);
  return (value ?? undefined) as Record<string, unknown> | undefined;
}

/**
 * The parameters of a GraphQL request over HTTP, as GraphQL over HTTP sends them: the query
 * string of a GET; the JSON object of a POST (`application/graphql` sends the document
 * itself). Read once here, from the body the body step read; yoga executes these very
 * parameters (src/http/transports/yoga.ts). A graphql-ws operation brings its own.
 */
function paramsOf(ctx: EdgeContext): GraphQLParams | null {
  const { request } = ctx;
  if (request.method === 'GET' || request.method === 'HEAD') {
    const p = request.searchParams;
    return { query: p.get('query') ?? undefined, operationName: p.get('operationName') ?? undefined, variables: jsonParam(p.get('variables'), 'variables'), extensions: jsonParam(p.get('extensions'), 'extensions') };
  }
  if (request.method !== 'POST') return null; // yoga answers 405
  const type = (request.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/graphql') return { query: ctx.body ?? '' };
  let body: unknown;
  try {
    body = JSON.parse(ctx.body ?? '');
  } catch {
    throw EdgeErrors.invalidJson();
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw EdgeErrors.invalidJson('The request body must be a JSON object.');
  const { query, operationName, variables, extensions } = body as Record<string, unknown>;
  // As sent: GraphQL's own checks answer a query or operation name of the wrong type.
  return { query, operationName, variables, extensions } as GraphQLParams;
}

export function graphqlParamsStep(): EdgeStep {
  return {
    name: 'graphql-params',
    run(ctx) {
      if (ctx.kind !== 'graphql' || ctx.transport !== 'http' || ctx.graphql) return;
      const params = paramsOf(ctx);
      if (params) ctx.graphql = { params };
    },
  };
}
