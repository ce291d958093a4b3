import {
  coerceInputValue, getNamedType, GraphQLError, isObjectType, parse, type GraphQLField, type GraphQLObjectType, type GraphQLSchema,
} from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import type { GraphQLContext } from '../src/builder.ts';
import { DomainError, validationError } from '../src/domain/shared/errors.ts';
import { domainErrorFromGraphQL } from '../src/http/error-envelope.ts';
import type { ServerContext } from '../src/http/graphql-server.ts';
import { LIST_PARAMS, routes, type RestRoute } from './routes.ts';
import { fromRest, isConnection, selectionOf, snake, toRest } from './translate.ts';

interface CompiledRoute {
  route: RestRoute;
  pattern: RegExp;
  pathParams: string[];
  field: GraphQLField<unknown, unknown>;
  document: ReturnType<typeof parse>;
  list: boolean;
}

export function connectionNodeType(connection: GraphQLObjectType): GraphQLObjectType {
  const edge = getNamedType(connection.getFields().edges.type) as GraphQLObjectType;
  return getNamedType(edge.getFields().node.type) as GraphQLObjectType;
}

export type RestResult = { status: number; body: unknown };

/** Compile the route table against the schema once: each route becomes one GraphQL document. */
export function compileRoutes(schema: GraphQLSchema): CompiledRoute[] {
  return routes.map((route) => {
    const [rootName, fieldName] = route.field.split('.');
    const root = rootName === 'Query' ? schema.getQueryType()! : schema.getMutationType()!;
    const field = root.getFields()[fieldName];
    if (!field) throw new Error(`route ${route.method} ${route.path}: no field ${route.field}`);
    const returned = getNamedType(field.type) as GraphQLObjectType;
    const list = isConnection(returned);
    const selection = list
      ? `edges { node { ${selectionOf(connectionNodeType(returned))} } } pageInfo { hasNextPage hasPreviousPage }`
      : selectionOf(returned);
    const varDefs = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
    const callArgs = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
    const source = `${rootName.toLowerCase()} Rest${varDefs ? `(${varDefs})` : ''} { ${fieldName}${callArgs ? `(${callArgs})` : ''} { ${selection} } }`;
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const pattern = new RegExp(`^${route.path.replace(/\{\w+\}/g, '([^/]+)')}$`);
    return { route, pattern, pathParams, field, document: parse(source), list };
  });
}

export type RouteMatch = { kind: 'found'; compiled: CompiledRoute; params: Record<string, string> } | { kind: 'method_not_allowed'; allowed: string[] } | { kind: 'not_found' };

export function matchRoute(compiled: CompiledRoute[], method: string, pathname: string): RouteMatch {
  const allowed: string[] = [];
  for (const c of compiled) {
    const m = c.pattern.exec(pathname);
    if (!m) continue;
    if (c.route.method !== method) {
      allowed.push(c.route.method);
      continue;
    }
    const params = Object.fromEntries(c.pathParams.map((name, i) => [name, decodeURIComponent(m[i + 1])]));
    return { kind: 'found', compiled: c, params };
  }
  return allowed.length ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
}

/** Gather the field's arguments from path, query string and body, in their GraphQL names and types. */
function variablesFor(c: CompiledRoute, params: Record<string, string>, query: URLSearchParams, body: unknown): Record<string, unknown> {
  const sources = c.route.args ?? {};
  const byRestName = new Map(
    c.field.args.filter((a) => !sources[a.name]).map((a) => [LIST_PARAMS[a.name] ?? snake(a.name), a] as const),
  );
  const variables: Record<string, unknown> = {};
  for (const [name, source] of Object.entries(sources)) {
    const arg = c.field.args.find((a) => a.name === name)!;
    variables[name] = source === 'body' ? fromRest(body, arg.type) : params[source.slice('path.'.length)];
  }
  for (const [key, raw] of query) {
    const arg = byRestName.get(key);
    if (!arg) throw validationError(key, `Received unknown parameter: ${key}.`, 'parameter_unknown');
    const typeName = getNamedType(arg.type).name;
    variables[arg.name] = typeName === 'Int' && /^-?\d+$/.test(raw) ? Number(raw) : typeName === 'Boolean' && /^(true|false)$/.test(raw) ? raw === 'true' : raw;
  }
  // Coerce here, with paths, so a bad input is a 422 naming its REST param.
  for (const arg of c.field.args) {
    coerceInputValue(variables[arg.name], arg.type, (path, _invalid, error) => {
      throw coercionError(arg.name, sources[arg.name] === 'body', path, error);
    });
  }
  return variables;
}

function coercionError(argName: string, fromBody: boolean, path: ReadonlyArray<string | number>, error: GraphQLError): DomainError {
  const restPath = [...(fromBody ? [] : [LIST_PARAMS[argName] ?? snake(argName)]), ...path.map((p) => (typeof p === 'string' ? snake(p) : String(p)))];
  const missing = /Field "(\w+)" of required type .* was not provided/.exec(error.message);
  if (missing) {
    const param = [...restPath, snake(missing[1])].join('.');
    return validationError(param, `Missing required param: ${param}.`, 'parameter_missing');
  }
  const param = restPath.join('.') || 'body';
  if (/non-nullable/.test(error.message) && (fromBody ? path.length > 0 : true)) {
    return validationError(param, `Missing required param: ${param}.`, 'parameter_missing');
  }
  return validationError(param, `Invalid ${param}: ${error.message.replace(/; .*$/, '')}`);
}

/**
 * Run one REST request through the GraphQL pipeline of `yoga` (same context, auth, error
 * masking and plugins as /graphql) and shape the answer as the REST contract says.
 */
export async function runRoute(
  yoga: YogaServerInstance<ServerContext, GraphQLContext>,
  match: Extract<RouteMatch, { kind: 'found' }>,
  request: Request,
  url: URL,
  body: unknown,
  serverContext: ServerContext,
): Promise<RestResult> {
  const c = match.compiled;
  const variableValues = variablesFor(c, match.params, url.searchParams, body);
  const { execute, contextFactory, schema } = yoga.getEnveloped({ request, ...serverContext });
  const contextValue = await contextFactory();
  const result = await execute({ schema, document: c.document, variableValues, contextValue });
  if (!('data' in result) && !('errors' in result)) throw new Error('unexpected streamed result');
  if (result.errors?.length) throw domainErrorFromGraphQL(result.errors[0]);
  const data = (result.data as Record<string, unknown>)[c.field.name];
  const returned = getNamedType(c.field.type) as GraphQLObjectType;
  if (c.list) {
    const connection = data as { edges: { node: unknown }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean } };
    return {
      status: 200,
      body: {
        object: 'list',
        data: connection.edges.map((e) => toRest(e.node, connectionNodeType(returned))),
        has_more: url.searchParams.has('ending_before') ? connection.pageInfo.hasPreviousPage : connection.pageInfo.hasNextPage,
        url: url.pathname,
      },
    };
  }
  if (!isObjectType(returned)) return { status: c.route.status ?? 200, body: data };
  return { status: c.route.status ?? 200, body: toRest(data, c.field.type) };
}
