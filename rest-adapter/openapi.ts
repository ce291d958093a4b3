import {
  getNamedType, getNullableType, isEnumType, isListType, isNonNullType, isObjectType, isScalarType,
  type GraphQLObjectType, type GraphQLOutputType,
} from 'graphql';
import { errorDefinition, type ErrorDefinition, type ErrorType } from '../src/domain/shared/errors.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../src/domain/shared/pagination.ts';
import type { Operation } from '../src/domain/shared/operation.ts';
import { argumentsSchema, type JsonSchema } from '../src/schema/operation-field.ts';
import { connectionNodeType, type CompiledRoute } from './adapter.ts';
import { isHandlerRoute, type JsonRoute } from './route.ts';
import { isConnection, isEntity, restParamName, snake } from './translate.ts';

type Schema = Record<string, unknown>;

const SCALARS: Record<string, Schema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: {},
};

const ERROR_TYPES: ErrorType[] = ['authentication_error', 'authorization_error', 'invalid_request', 'validation_error', 'conflict', 'rate_limit_error', 'payment_error', 'integration_error', 'internal_error'];

const ERROR_SCHEMA: Schema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      properties: {
        type: { type: 'string', enum: ERROR_TYPES },
        code: { type: 'string', description: 'Stable code to switch on; each operation lists those it can answer (x-error-codes).' },
        message: { type: 'string' },
        request_id: { type: 'string' },
        param: { type: 'string', description: 'The offending field, on validation_error.' },
        current_state: { type: 'string', description: 'On invalid_state_transition: the state of the object now.' },
        object: { type: 'string', description: 'On invalid_state_transition: the type of the object.' },
        unmet_gates: { type: 'array', items: { type: 'string' }, description: 'On booking_not_ready: the readiness gates not met.' },
      },
    },
  },
};


/**
 * Every error code a route can answer: those of its shape (who may call it, what input it
 * takes, whether it names objects, whether it is a POST), then those its operation declares.
 * The route-generated contract tests check that every error a route answers is listed here.
 */
export function routeErrorCodes(c: CompiledRoute): ErrorDefinition[] {
  const codes = new Set<string>(['missing_api_key', 'invalid_api_key', 'api_key_environment_mismatch', 'rate_limited', 'internal_error', 'parameter_unknown']);
  const op = c.operation;
  if (op?.access.sandbox) codes.add('sandbox_only');
  if (!op?.access.publishable || op.access.sandbox) codes.add('secret_key_required');
  if (op?.access.permission) codes.add('permission_denied');
  if (c.pathParams.length) codes.add('resource_missing');
  const args = op ? argumentsSchema(op) : null;
  // Any input may be refused: its arguments, and the body every POST reads (the input check).
  if (c.list || Object.keys(args?.properties ?? {}).length || c.route.method === 'POST') codes.add('parameter_invalid');
  if ((args?.required ?? []).length || requiresNested(args)) codes.add('parameter_missing');
  // A DELETE's body is read too (and must be empty or a JSON object); only POSTs take Idempotency-Key.
  if (c.route.method !== 'GET') for (const code of ['invalid_json', 'payload_too_large', 'nesting_too_deep']) codes.add(code);
  if (c.route.method === 'POST') for (const code of ['idempotency_key_invalid', 'idempotency_key_reused', 'idempotency_key_in_use']) codes.add(code);
  for (const entry of op?.errors ?? []) codes.add(entry.definition.code);
  return [...codes].map(errorDefinition).sort((a, b) => a.status - b.status || a.code.localeCompare(b.code));
}

function requiresNested(schema: JsonSchema | null): boolean {
  return Object.values(schema?.$defs ?? {}).some((d) => (d.required ?? []).length > 0);
}

/** JSON Schema (zod's, camelCase) → the REST request schema: snake_case names, no extra keys, refs into components. */
function restSchema(schema: JsonSchema, underMetadata = false): Schema {
  if (Array.isArray(schema)) return schema as unknown as Schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'x-graphql' || k === '$schema' || k === '$defs') continue;
    if (k === '$ref') out.$ref = `#/components/schemas/${String(v).replace(/^#\/\$defs\//, '')}`;
    else if (k === 'properties' && !underMetadata) out.properties = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([name, s]) => [snake(name), restSchema(s, name === 'metadata')]));
    else if (k === 'required') out.required = (v as string[]).map(snake);
    else if (k === 'anyOf' || k === 'allOf' || k === 'oneOf') out[k] = (v as JsonSchema[]).map((s) => restSchema(s, underMetadata));
    else if (k === 'items' || k === 'additionalProperties' || k === 'propertyNames') out[k] = typeof v === 'object' && v !== null ? restSchema(v as JsonSchema, underMetadata) : v;
    else out[k] = v;
  }
  if (schema.type === 'object' && schema.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** An example in domain names (camelCase), in REST names; metadata keys are the integrator's. */
function restExample(value: unknown, underMetadata = false): unknown {
  if (Array.isArray(value)) return value.map((v) => restExample(v));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [underMetadata ? k : snake(k), restExample(v, k === 'metadata')]));
}

/** OpenAPI 3.1 of every REST route, generated from the route table and the operations it runs. */
export function openApiDocument(compiled: CompiledRoute[]) {
  const components: Record<string, Schema> = { Error: ERROR_SCHEMA };

  function outputSchema(type: GraphQLOutputType): Schema {
    const nullable = !isNonNullType(type);
    const inner = getNullableType(type);
    let schema: Schema;
    if (isListType(inner)) schema = { type: 'array', items: outputSchema(inner.ofType) };
    else if (isScalarType(inner)) schema = { ...SCALARS[inner.name] };
    else if (isEnumType(inner)) schema = { type: 'string', enum: inner.getValues().map((v) => v.value) };
    else if (isObjectType(inner)) schema = { $ref: `#/components/schemas/${objectComponent(inner)}` };
    else schema = {};
    return nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
  }

  function objectComponent(type: GraphQLObjectType): string {
    if (components[type.name]) return type.name;
    components[type.name] = {};
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    if (isEntity(type)) {
      properties.object = { type: 'string', const: snake(type.name).replace(/^_/, '') };
      required.push('object');
    }
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      if (field.args.some((a) => isNonNullType(a.type))) continue;
      if (isObjectType(named) && (isEntity(named) || isConnection(named))) continue;
      properties[snake(field.name)] = { ...outputSchema(field.type), ...(field.description ? { description: field.description } : {}) };
      required.push(snake(field.name));
    }
    components[type.name] = { type: 'object', description: type.description ?? undefined, properties, required };
    return type.name;
  }

  const errorResponses = (codes: ErrorDefinition[]) => {
    const byStatus = new Map<number, ErrorDefinition[]>();
    for (const d of codes) byStatus.set(d.status, [...(byStatus.get(d.status) ?? []), d]);
    return Object.fromEntries(
      [...byStatus].map(([status, defs]) => [
        String(status),
        { description: defs.map((d) => `\`${d.code}\``).join(', '), 'x-error-codes': defs.map((d) => d.code), content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      ]),
    );
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const c of compiled) {
    const op = c.operation as Operation;
    const args = argumentsSchema(op);
    for (const [name, def] of Object.entries(args.$defs ?? {})) components[name] ??= restSchema(def);
    const sources = isHandlerRoute(c.route) ? {} : ((c.route as JsonRoute).args ?? {});
    const parameters: Schema[] = c.pathParams.map((name) => {
      const arg = Object.entries(sources).find(([, s]) => s === `path.${name}`)?.[0];
      return { name, in: 'path', required: true, schema: { type: 'string' }, description: (arg && args.properties?.[arg]?.description) || undefined, example: arg ? (op.example as Record<string, unknown> | undefined)?.[arg] : undefined };
    });
    for (const [name, schema] of Object.entries(args.properties ?? {})) {
      if (sources[name]) continue;
      const { description, ...rest } = restSchema(schema);
      parameters.push({ name: restParamName(name), in: 'query', required: (args.required ?? []).includes(name), schema: rest, ...(description ? { description } : {}) });
    }
    if (c.list) {
      parameters.push(
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }, description: 'Items per page.' },
        { name: 'starting_after', in: 'query', required: false, schema: { type: 'string' }, description: 'The id after which the page starts (the next, older page).' },
        { name: 'ending_before', in: 'query', required: false, schema: { type: 'string' }, description: 'The id before which the page ends (the previous, newer page).' },
      );
    }
    if (c.route.method === 'POST') parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 }, description: 'Retries with the same key repeat no side effect; the first answer is replayed for 24 hours.' });
    const bodyArg = Object.entries(sources).find(([, s]) => s === 'body')?.[0];
    const bodySchema = bodyArg ? args.properties?.[bodyArg] : undefined;
    const example = bodyArg ? (op.example as Record<string, unknown> | undefined)?.[bodyArg] : undefined;
    const returned = c.field ? (getNamedType(c.field.type) as GraphQLObjectType) : null;
    const success = !c.field
      ? { type: 'string' }
      : c.list
        ? {
            type: 'object',
            required: ['object', 'data', 'has_more', 'url'],
            properties: {
              object: { const: 'list' },
              data: { type: 'array', items: { $ref: `#/components/schemas/${objectComponent(connectionNodeType(returned!))}` } },
              has_more: { type: 'boolean' },
              url: { type: 'string' },
            },
          }
        : outputSchema(c.field.type);
    const answersError = !isHandlerRoute(c.route) ? (c.route as JsonRoute).answersError : undefined;
    const codes = routeErrorCodes(c);
    const mediaType = isHandlerRoute(c.route) ? c.route.produces : 'application/json';
    (paths[c.route.path] ??= {})[c.route.method.toLowerCase()] = {
      operationId: op.name,
      summary: op.summary,
      description: op.description,
      'x-release-stage': c.route.stage,
      'x-released': false,
      ...(c.field ? { 'x-graphql-field': (c.route as JsonRoute).field } : {}),
      'x-publishable-key': Boolean(op.access.publishable && !op.access.sandbox),
      'x-permission': op.access.permission,
      'x-error-codes': codes.map((d) => d.code),
      parameters,
      ...(bodySchema
        ? {
            requestBody: {
              required: (args.required ?? []).includes(bodyArg!),
              content: { 'application/json': { schema: restSchema(bodySchema), ...(example !== undefined ? { example: restExample(example) } : {}) } },
            },
          }
        : {}),
      responses: {
        ...(answersError
          ? {}
          : { [String(c.route.status ?? 200)]: { description: 'Success', content: { [mediaType]: { schema: success } } } }),
        ...errorResponses(codes),
      },
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Rental platform developer API',
      version: 'v1',
      description: 'Proposed developer platform: no operation is released yet. `x-release-stage` marks the first public release; `x-error-codes` lists the error codes each operation can answer.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_{live|test}_{pk|sk}_… API key' } } },
  };
}
