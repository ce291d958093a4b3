import {
  getNamedType, getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType,
  type GraphQLInputType, type GraphQLObjectType, type GraphQLOutputType,
} from 'graphql';
import { connectionNodeType, type compileRoutes } from './adapter.ts';
import { LIST_PARAMS } from './routes.ts';
import { isConnection, isEntity, snake } from './translate.ts';

type Schema = Record<string, unknown>;
type Compiled = ReturnType<typeof compileRoutes>[number];

const SCALARS: Record<string, Schema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: {},
};

const ERROR_SCHEMA: Schema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      properties: {
        type: { type: 'string', enum: ['authentication_error', 'authorization_error', 'invalid_request', 'validation_error', 'conflict', 'rate_limit_error', 'payment_error', 'integration_error', 'internal_error'] },
        code: { type: 'string' },
        message: { type: 'string' },
        request_id: { type: 'string' },
        param: { type: 'string', description: 'The offending field, on validation_error.' },
      },
    },
  },
};

/** OpenAPI 3.1 of every REST route, generated from the route table and the GraphQL types it runs. */
export function openApiDocument(compiled: Compiled[]) {
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

  function inputSchema(type: GraphQLInputType): Schema {
    const inner = getNullableType(type);
    if (isListType(inner)) return { type: 'array', items: inputSchema(inner.ofType) };
    if (isScalarType(inner)) return { ...SCALARS[inner.name] };
    if (isEnumType(inner)) return { type: 'string', enum: inner.getValues().map((v) => v.value) };
    if (isInputObjectType(inner)) {
      const properties: Record<string, Schema> = {};
      const required: string[] = [];
      for (const field of Object.values(inner.getFields())) {
        properties[snake(field.name)] = { ...inputSchema(field.type), ...(field.description ? { description: field.description } : {}) };
        if (isNonNullType(field.type)) required.push(snake(field.name));
      }
      return { type: 'object', properties, required, additionalProperties: false };
    }
    return {};
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const c of compiled) {
    const { route, field } = c;
    const sources = route.args ?? {};
    const parameters: Schema[] = c.pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    for (const arg of field.args) {
      if (sources[arg.name]) continue;
      parameters.push({ name: LIST_PARAMS[arg.name] ?? snake(arg.name), in: 'query', required: isNonNullType(arg.type), schema: inputSchema(arg.type) });
    }
    const bodyArg = Object.entries(sources).find(([, s]) => s === 'body')?.[0];
    const returned = getNamedType(field.type) as GraphQLObjectType;
    const success = c.list
      ? {
          type: 'object',
          required: ['object', 'data', 'has_more', 'url'],
          properties: {
            object: { const: 'list' },
            data: { type: 'array', items: { $ref: `#/components/schemas/${objectComponent(connectionNodeType(returned))}` } },
            has_more: { type: 'boolean' },
            url: { type: 'string' },
          },
        }
      : outputSchema(field.type);
    const errorResponse = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      operationId: field.name,
      summary: route.summary,
      'x-release-stage': route.stage,
      'x-released': false,
      'x-graphql-field': route.field,
      'x-publishable-key': Boolean(route.publishable),
      parameters: [
        ...parameters,
        ...(route.method === 'POST' ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }] : []),
      ],
      ...(bodyArg ? { requestBody: { required: false, content: { 'application/json': { schema: inputSchema(field.args.find((a) => a.name === bodyArg)!.type) } } } } : {}),
      responses: {
        ...(route.answersError
          ? { [String(route.answersError.status)]: { description: `Always: the ${route.answersError.code} error, after its event is recorded`, content: errorResponse.content } }
          : { [String(route.status ?? 200)]: { description: 'Success', content: { 'application/json': { schema: success } } } }),
        '400': errorResponse, '401': errorResponse, '403': errorResponse, '404': errorResponse, '409': errorResponse, '422': errorResponse, '429': errorResponse,
      },
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Rental platform developer API',
      version: 'v1',
      description: 'Proposed developer platform: no operation is released yet (SPEC.md item 4). `x-release-stage` marks the first public release.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_{live|test}_{pk|sk}_… API key' } } },
  };
}
