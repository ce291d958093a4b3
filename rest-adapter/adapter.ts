import {
  coerceInputValue, getNamedType, GraphQLError, type GraphQLArgument, isObjectType, parse, type DocumentNode, type GraphQLField, type GraphQLObjectType, type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GraphQLContext } from '../src/builder.ts';
import { CLIENT_SECRET_PARAM } from '../src/domain/bookings/browser-booking.ts';
import { CommonErrors } from '../src/domain/shared/common.errors.ts';
import { DomainError } from '../src/domain/shared/errors.ts';
import type { Operation } from '../src/domain/shared/operation.ts';
import { jsonAnswer, type EdgeAnswer, type EdgeContext, type MatchedRoute } from '../src/http/edge/runner.ts';
import type { RouteLookup } from '../src/http/edge/steps/routing.ts';
import { asDomainError, classifyGraphQLError } from '../src/http/error-envelope.ts';
import { unsafeText } from '../src/http/input-safety.ts';
import { isHandlerRoute, type HandlerRoute, type JsonRoute, type RestRoute } from './route.ts';
import { fromRest, isConnection, restParamName, selectionOf, snake, toRest } from './translate.ts';

export interface CompiledRoute {
  route: RestRoute;
  pattern: RegExp;
  pathParams: string[];
  operation: Operation | null;
  /** JSON routes: the field they run, and its document. */
  field: GraphQLField<unknown, unknown> | null;
  document: DocumentNode | null;
  list: boolean;
  schema: GraphQLSchema;
  /** The document as graphql-jit's function, compiled at the route's first request. */
  query?: CompiledQuery['query'];
  /** Where the field's arguments come from (made at the first request). */
  sources?: ArgumentSources;
}

function compiledQuery(c: CompiledRoute): CompiledQuery['query'] {
  if (c.query) return c.query;
  const compiled = compileQuery(c.schema, c.document!, undefined, {});
  if (!isCompiledQuery(compiled)) throw new Error(`route ${c.route.method} ${c.route.path}: its document does not compile (${compiled.errors?.map((e) => e.message).join('; ')})`);
  return (c.query = compiled.query);
}

export function connectionNodeType(connection: GraphQLObjectType): GraphQLObjectType {
  const edge = getNamedType(connection.getFields().edges.type) as GraphQLObjectType;
  return getNamedType(edge.getFields().node.type) as GraphQLObjectType;
}

/** Relay arguments a REST list takes under other names, and those it does not take at all. */
const RELAY_ONLY = new Set(['last']);

function compileJsonRoute(schema: GraphQLSchema, route: JsonRoute) {
  const [rootName, fieldName] = route.field.split('.');
  const root = rootName === 'Query' ? schema.getQueryType()! : schema.getMutationType()!;
  const field = root.getFields()[fieldName];
  if (!field) throw new Error(`route ${route.method} ${route.path}: no field ${route.field}`);
  const operation = (field.extensions?.operation as Operation | undefined) ?? null;
  if (!operation) throw new Error(`route ${route.method} ${route.path}: ${route.field} declares no operation`);
  const returned = getNamedType(field.type) as GraphQLObjectType;
  const list = isConnection(returned);
  const selection = list ? `edges { node { ${selectionOf(connectionNodeType(returned))} } } pageInfo { hasNextPage hasPreviousPage }` : isObjectType(returned) ? selectionOf(returned, true) : '';
  const varDefs = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const callArgs = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const source = `${rootName.toLowerCase()} Rest${varDefs ? `(${varDefs})` : ''} { ${fieldName}${callArgs ? `(${callArgs})` : ''}${selection ? ` { ${selection} }` : ''} }`;
  return { field, operation, document: parse(source), list };
}

/** Compile the route table against the schema once: each JSON route becomes one GraphQL document. */
export function compileRoutes(schema: GraphQLSchema, routes: RestRoute[]): CompiledRoute[] {
  return routes.map((route) => {
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const pattern = new RegExp(`^${route.path.replace(/\{\w+\}/g, '([^/]+)')}$`);
    if (isHandlerRoute(route)) return { route, pattern, pathParams, operation: route.operation, field: null, document: null, list: false, schema };
    return { route, pattern, pathParams, schema, ...compileJsonRoute(schema, route) };
  });
}

/** A path segment as the id it names; one that cannot be an id (bad encoding, NUL) names nothing: 404. */
function pathParam(name: string, raw: string): string {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw CommonErrors.resourceMissing(name.replace(/_id$/, '').replace(/_/g, ' '), raw, name);
  }
  if (unsafeText(value) !== null) throw CommonErrors.resourceMissing(name.replace(/_id$/, '').replace(/_/g, ' '), raw, name);
  return value;
}

/** What a route's arguments come from, worked out at its first request. */
interface ArgumentSources {
  /** The field's arguments a query string may carry, by REST name. */
  byRestName: Map<string, GraphQLArgument>;
  /** The arguments the path or the body gives. */
  given: { arg: GraphQLArgument; source: `path.${string}` | 'body' }[];
  /** Whether an argument comes from the body. */
  takesBody: boolean;
}

function argumentSources(c: CompiledRoute & { route: JsonRoute }): ArgumentSources {
  if (c.sources) return c.sources;
  const field = c.field!;
  const sources = c.route.args ?? {};
  return (c.sources = {
    byRestName: new Map(field.args.filter((a) => !sources[a.name] && !RELAY_ONLY.has(a.name)).map((a) => [restParamName(a.name), a] as const)),
    given: Object.entries(sources).map(([name, source]) => ({ arg: field.args.find((a) => a.name === name)!, source })),
    takesBody: Object.values(sources).includes('body'),
  });
}

/** Gather the field's arguments from path, query string and body, in their GraphQL names and types. */
function variablesFor(c: CompiledRoute & { route: JsonRoute }, params: Record<string, string>, query: URLSearchParams | null, body: unknown): Record<string, unknown> {
  const field = c.field!;
  const { byRestName, given, takesBody } = argumentSources(c);
  const variables: Record<string, unknown> = {};
  // A route without a body argument takes no body parameters: a key sent anyway is a typo.
  if (!takesBody && body !== null && typeof body === 'object') {
    for (const first in body) throw CommonErrors.parameterUnknown(first);
  }
  for (const { arg, source } of given) {
    variables[arg.name] = source === 'body' ? fromRest(body, arg.type) : pathParam(source.slice('path.'.length), params[source.slice('path.'.length)]);
  }
  if (query !== null) for (const [key, raw] of query) {
    // A browser booking's credential, read by the edge (src/http/edge/steps/principal.ts), not an argument.
    if (key === CLIENT_SECRET_PARAM) continue;
    const arg = byRestName.get(key);
    if (!arg) throw CommonErrors.parameterUnknown(key);
    const typeName = getNamedType(arg.type).name;
    variables[arg.name] = typeName === 'Int' && /^-?\d+$/.test(raw) ? Number(raw) : typeName === 'Boolean' && /^(true|false)$/.test(raw) ? raw === 'true' : raw;
  }
  // Stripe's ending_before takes the page nearest the cursor: Relay's `last` before it.
  if (c.list && variables.before !== undefined && variables.first !== undefined) {
    variables.last = variables.first;
    delete variables.first;
  }
  // Coerce here, with paths, so a bad input is a 422 naming its REST param.
  for (const arg of field.args) {
    coerceInputValue(variables[arg.name], arg.type, (path, _invalid, error) => {
      throw coercionError(arg.name, given.some((g) => g.arg === arg && g.source === 'body'), path, error);
    });
  }
  return variables;
}

function coercionError(argName: string, fromBody: boolean, path: ReadonlyArray<string | number>, error: GraphQLError): DomainError {
  const restPath = [...(fromBody ? [] : [restParamName(argName)]), ...path.map((p) => (typeof p === 'string' ? snake(p) : String(p)))];
  const missing = /Field "(\w+)" of required type .* was not provided/.exec(error.message);
  if (missing) return CommonErrors.parameterMissing([...restPath, snake(missing[1])].join('.'));
  const param = restPath.join('.') || 'body';
  if (/non-nullable/.test(error.message) && (fromBody ? path.length > 0 : true)) return CommonErrors.parameterMissing(param);
  return CommonErrors.parameterInvalid(param, `Invalid ${param}: ${error.message.replace(/; .*$/, '')}`);
}

/** The operation context of a request the edge admitted (its principal known). */
export type ContextOf = (edge: EdgeContext) => GraphQLContext;

/**
 * Run one request of a JSON route: its field, through the route's document compiled once by
 * graphql-jit to a plain function, in the same operation context as /graphql; then shape the
 * answer as the REST contract says (status and JSON body). The edge's steps admitted the
 * request (key, environment, rate limit, access, idempotency) and checked its input
 * (`ctx.input`: the body read and checked once), so nothing of GraphQL's pipeline is left to
 * run. The domain error of a refusal travels intact; anything else is internal_error, logged once.
 */
async function answerJson(contextOf: ContextOf, c: CompiledRoute & { route: JsonRoute }, params: Record<string, string>, ctx: EdgeContext): Promise<EdgeAnswer> {
  const { request } = ctx;
  // The query string is parsed only when there is one (request.searchParams makes it).
  const variableValues = variablesFor(c, params, request.search === '' ? null : request.searchParams, c.route.method === 'GET' ? {} : (ctx.input ?? {}));
  const query = compiledQuery(c);
  const result = await query(undefined, contextOf(ctx), variableValues);
  if (result.errors?.length) {
    const first = result.errors[0];
    if (first.originalError instanceof DomainError) throw first.originalError;
    // An error with a path arose while executing (an answer that did not serialize, say): ours, not the caller's input.
    throw first.path ? asDomainError(first.originalError ?? first, ctx.requestId) : classifyGraphQLError(first);
  }
  const data = (result.data as Record<string, unknown>)[c.field!.name];
  const returned = getNamedType(c.field!.type) as GraphQLObjectType;
  if (c.list) {
    const connection = data as { edges: { node: unknown }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean } };
    return jsonAnswer(200, {
      object: 'list',
      data: connection.edges.map((e) => toRest(e.node, connectionNodeType(returned))),
      has_more: request.searchParams.has('ending_before') ? connection.pageInfo.hasPreviousPage : connection.pageInfo.hasNextPage,
      url: request.pathname,
    });
  }
  return jsonAnswer(c.route.status ?? 200, isObjectType(returned) ? toRest(data, c.field!.type) : data);
}

function answerHandler(contextOf: ContextOf, route: HandlerRoute, params: Record<string, string>, ctx: EdgeContext): Promise<EdgeAnswer> {
  const decoded = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, pathParam(k, v)]));
  return route.handler({ domain: contextOf(ctx).domain, request: ctx.request, params: decoded, body: ctx.body ?? '' });
}

/**
 * The routes a path may match, in table order: a path parameter is one segment, so only
 * routes with as many segments can match, and of those only the ones whose first segment
 * after /v1 is that literal or a parameter. Spares every request a pass over the whole table.
 */
function candidatesBySegments(compiled: CompiledRoute[]): (pathname: string) => CompiledRoute[] {
  // A path's number of segments and its segment after /v1 (`/v1/vehicles/x` → 4, `vehicles`),
  // read without splitting the path: every request looks its candidates up.
  const shapeOf = (path: string) => {
    let count = 1;
    let second = -1;
    let third = -1;
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) {
      count++;
      if (count === 3) second = i + 1;
      else if (count === 4) third = i;
    }
    return { count, second: second < 0 ? '' : path.slice(second, third < 0 ? path.length : third) };
  };
  const keyOf = (shape: { count: number; second: string }) => `${shape.count}|${shape.second}`;
  const literal = new Map<string, CompiledRoute[]>();
  const anyAtTwo = new Map<number, CompiledRoute[]>();
  for (const c of compiled) {
    const shape = shapeOf(c.route.path);
    if (shape.second.startsWith('{')) anyAtTwo.set(shape.count, [...(anyAtTwo.get(shape.count) ?? []), c]);
    else literal.set(keyOf(shape), [...(literal.get(keyOf(shape)) ?? []), c]);
  }
  const merged = new Map<string, CompiledRoute[]>();
  const order = new Map(compiled.map((c, i) => [c, i]));
  return (pathname) => {
    const shape = shapeOf(pathname);
    const key = keyOf(shape);
    let list = merged.get(key);
    if (!list) {
      list = [...(literal.get(key) ?? []), ...(anyAtTwo.get(shape.count) ?? [])].sort((a, b) => order.get(a)! - order.get(b)!);
      // Keys of paths no route has are not kept: an unknown path cannot grow the map.
      if (list.length > 0) merged.set(key, list);
    }
    return list;
  };
}

/** The route table as the routing plugin's lookup (matching only: no input is read yet). */
export function routeLookup(compiled: CompiledRoute[], contextOf: ContextOf): RouteLookup {
  const candidates = candidatesBySegments(compiled);
  return (method, pathname) => {
    const allowed: string[] = [];
    for (const c of candidates(pathname)) {
      const m = c.pattern.exec(pathname);
      if (!m) continue;
      if (c.route.method !== method) {
        allowed.push(c.route.method);
        continue;
      }
      const params: Record<string, string> = {};
      for (let i = 0; i < c.pathParams.length; i++) params[c.pathParams[i]] = m[i + 1];
      const route: MatchedRoute = {
        method,
        path: c.route.path,
        params,
        operation: c.operation,
        takesJson: !isHandlerRoute(c.route),
        deprecated: c.route.deprecated,
        execute: isHandlerRoute(c.route) ? (ctx) => answerHandler(contextOf, c.route as HandlerRoute, params, ctx) : (ctx) => answerJson(contextOf, c as CompiledRoute & { route: JsonRoute }, params, ctx),
      };
      return { kind: 'found', route };
    }
    return allowed.length ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  };
}
