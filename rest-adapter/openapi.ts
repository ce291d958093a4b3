import {
  getNamedType, getNullableType, isEnumType, isListType, isNonNullType, isObjectType, isScalarType,
  type GraphQLObjectType, type GraphQLOutputType,
} from 'graphql';
import { EVENT_CATALOGUE, EVENT_OBJECT_OMITS, EVENT_TYPES } from '../src/domain/events/event-types.ts';
import { errorDefinition, type ErrorDefinition, type ErrorType } from '../src/domain/shared/errors.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../src/domain/shared/pagination.ts';
import type { Operation } from '../src/domain/shared/operation.ts';
import { argumentsSchema, type JsonSchema } from '../src/schema/operation-field.ts';
import { connectionNodeType, type CompiledRoute } from './adapter.ts';
import { isHandlerRoute, type JsonRoute, type RestRoute } from './route.ts';
import { ANSWER_EXAMPLES } from './examples.ts';
import { routeGroups } from './routes/index.ts';
// The ops session's codes, which every route may answer to a cookie-authenticated call.
import '../src/ops/ops.errors.ts';
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
        permission: { type: 'string', description: 'On permission_denied: the permission the key or member lacks.' },
        permissions: { type: 'array', items: { type: 'string' }, description: 'On permission_not_grantable: the permissions the caller may not grant.' },
        charge_id: { type: 'string', description: 'On charge_disputed: the charge under an open dispute.' },
        customer_id: { type: 'string', description: 'On customer_exists: the customer who has that email.' },
        domain_id: { type: 'string', description: 'On domain_exists: the domain added already.' },
        missing_records: { type: 'array', items: { type: 'string' }, description: 'On dns_records_missing: the DNS records not found yet.' },
        used_by: { type: 'array', items: { type: 'string' }, description: 'On file_in_use: the ids of what cites the file.' },
        available_cents: { type: 'integer', description: 'On amount_exceeds_available: the amount still available, in cents.' },
        vehicle_id: { type: 'string', description: 'On vehicle_archived: the archived vehicle.' },
        booking_count: { type: 'integer', description: 'On vehicle_has_bookings: how many bookings hold the vehicle.' },
        booking_ids: { type: 'array', items: { type: 'string' }, description: 'On vehicle_has_bookings: the bookings that hold it.' },
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
  // Every route reads the database (the key, at least): it may be restarting, or contended.
  codes.add('database_unavailable').add('transaction_conflict');
  // Called with the ops screen's session cookie instead of a key: an ended session, another
  // origin's page, and on a state-changing request a missing or wrong CSRF token.
  codes.add('session_required').add('origin_not_allowed');
  // Called with an OAuth app's access token: expired, or revoked (the business disconnected the app).
  codes.add('token_expired').add('token_revoked');
  // Called with a publishable key (any route may be, before its access is checked): from a
  // browser on an origin the business does not allow; with a client_secret that is not one of
  // its bookings'. Both are answered before the route's own access.
  codes.add('browser_origin_not_allowed').add('invalid_client_secret');
  if (c.route.method !== 'GET') codes.add('csrf_token_invalid');
  const op = c.operation;
  if (op?.access.sandbox) codes.add('sandbox_only');
  if (!op?.access.publishable || op.access.sandbox) codes.add('secret_key_required');
  // A browser booking's caller (a publishable key with a client_secret) may call only that booking's read and checkout.
  if ((op?.access.publishable || op?.access.browser) && !op.access.sandbox) codes.add('secret_key_required');
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
  // A nullable field (zod's `.nullish()` around a described schema): its description on the field itself.
  if (out.description === undefined && Array.isArray(out.anyOf)) {
    const described = (out.anyOf as Schema[]).find((s) => typeof s.description === 'string');
    if (described) out.description = described.description;
  }
  return out;
}

/**
 * A query parameter's schema: a parameter is absent or a string, never null, so a nullable
 * argument's schema is its non-null branch; its description and first example move to the
 * parameter.
 */
function parameterSchema(schema: JsonSchema): { schema: Schema; description?: string; example?: unknown } {
  let rest = restSchema(schema);
  const branches = Array.isArray(rest.anyOf) ? (rest.anyOf as Schema[]).filter((s) => s.type !== 'null') : null;
  if (branches?.length === 1 && (rest.anyOf as Schema[]).length === 2) {
    const { anyOf: _, ...outer } = rest;
    rest = { ...branches[0], ...outer };
  }
  const { description, examples, ...out } = rest as Schema & { description?: string; examples?: unknown[] };
  return { schema: out, ...(description ? { description } : {}), ...(Array.isArray(examples) && examples.length ? { example: examples[0] } : {}) };
}

/** Whether a body schema has fields a caller must send (its own, or its referenced input type's). */
function hasRequiredFields(schema: JsonSchema, defs: Record<string, JsonSchema>): boolean {
  const s = schema as JsonSchema & { anyOf?: JsonSchema[]; $ref?: string };
  if (s.$ref) return hasRequiredFields(defs[String(s.$ref).replace(/^#\/\$defs\//, '')] ?? {}, defs);
  if (Array.isArray(s.anyOf)) return s.anyOf.some((b) => hasRequiredFields(b, defs));
  return (s.required ?? []).length > 0;
}

/** The OpenAPI tag of a route: its API group (the route file); a route outside the groups, by its first path segment. */
const GROUP_OF = new Map<RestRoute, string>(routeGroups.flatMap((g) => g.routes.map((r) => [r, g.tag] as const)));
const tagOf = (route: RestRoute) => GROUP_OF.get(route) ?? route.path.split('/')[2] ?? 'other';

const camel = (s: string) => s.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase()).replace(/^[a-z]/, (c) => c.toUpperCase());

const WEBHOOK_HEADERS: Schema[] = [
  { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: "The event's id (evt_...): the same on every retry of one event, so a receiver can deduplicate.", example: 'evt_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'When this attempt was signed, in seconds since the Unix epoch; refuse one far from your clock (replays).', example: '1764039600' },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: "Standard Webhooks signature: `v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the endpoint secret's bytes (base64 after `whsec_`). Compare in constant time; any `standardwebhooks` library verifies it.",
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/** An example in domain names (camelCase), in REST names; metadata keys are the integrator's. */
function restExample(value: unknown, underMetadata = false): unknown {
  if (Array.isArray(value)) return value.map((v) => restExample(v));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [underMetadata ? k : snake(k), restExample(v, k === 'metadata')]));
}

const withExample = (example: unknown) => (example === undefined ? {} : { example });

/**
 * The example of a JSON route's success answer: the REST example of the object it answers
 * (rest-adapter/examples.ts), with the fields the route declares different (`answerExample`:
 * a canceled booking for the cancel route); a list, one such object in a page of the list's
 * path. Undefined when none is declared (test/openapi-examples.test.ts fails naming the route).
 */
function successExample(c: CompiledRoute, returned: GraphQLObjectType | null, parameters: Schema[]): unknown {
  if (!c.field || isHandlerRoute(c.route)) return undefined;
  const own = (c.route as JsonRoute).answerExample;
  if (c.list) {
    const item = ANSWER_EXAMPLES[connectionNodeType(returned!).name];
    if (!item) return undefined;
    const url = c.route.path.replace(/\{(\w+)\}/g, (whole, name: string) => String(parameters.find((p) => p.in === 'path' && p.name === name)?.example ?? whole));
    return { object: 'list', data: [{ ...item, ...own }], has_more: false, url };
  }
  if (returned && isObjectType(returned)) {
    const base = ANSWER_EXAMPLES[returned.name];
    return base ? { ...base, ...own } : undefined;
  }
  return own;
}

/** A route that always answers an error (the sandbox's declined payment): that error's answer gets the example, the route's `answerExample` giving its fields. */
function withErrorExample(responses: Record<string, Record<string, unknown>>, route: RestRoute) {
  const answersError = isHandlerRoute(route) ? undefined : route.answersError;
  if (!answersError) return responses;
  const response = responses[String(answersError.status)];
  if (!response) return responses;
  const definition = errorDefinition(answersError.code);
  const example = { error: { type: definition.type, code: definition.code, message: definition.description, request_id: 'req_01jd3m4k5n6p7q8r9s0t1v2w3x', ...(route as JsonRoute).answerExample } };
  return { ...responses, [String(answersError.status)]: { ...response, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example } } } };
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

  // Types a route answers at the top that are no entity (a pickup readiness, the settings): such
  // an answer names its type in `object` too; inside another object it does not.
  const answeredAtTop = new Set(compiled.flatMap((c) => (c.field && !c.list && isObjectType(getNamedType(c.field.type)) && !isEntity(getNamedType(c.field.type) as GraphQLObjectType) ? [getNamedType(c.field.type).name] : [])));

  function objectComponent(type: GraphQLObjectType): string {
    if (components[type.name]) return type.name;
    components[type.name] = {};
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    if (isEntity(type)) {
      properties.object = { type: 'string', const: snake(type.name).replace(/^_/, '') };
      required.push('object');
    } else if (answeredAtTop.has(type.name)) {
      // Required below when no other object holds it (then it is only ever an answer).
      properties.object = { type: 'string', const: snake(type.name).replace(/^_/, ''), description: 'The type of the object: present when it is the answer itself, not inside another object.' };
    }
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      // As REST answers show it (rest-adapter/translate.ts): a relation only when its type embeds it (a conversation's messages).
      const embedded = field.extensions?.restEmbed === true;
      if (!embedded && field.args.some((a) => isNonNullType(a.type))) continue;
      if (!embedded && isObjectType(named) && (isEntity(named) || isConnection(named))) continue;
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
        {
          description: defs.map((d) => `\`${d.code}\``).join(', '),
          'x-error-codes': defs.map((d) => d.code),
          ...(defs.some((d) => d.retryAfterSeconds !== undefined) ? { headers: { 'Retry-After': { description: 'Seconds after which the same request may succeed.', schema: { type: 'integer' } } } } : {}),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
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
      const param = parameterSchema(schema);
      const example = (op.example as Record<string, unknown> | undefined)?.[name] ?? param.example;
      parameters.push({
        name: restParamName(name),
        in: 'query',
        required: (args.required ?? []).includes(name),
        schema: param.schema,
        ...(param.description ? { description: param.description } : {}),
        ...(example !== undefined ? { example: restExample(example) } : {}),
      });
    }
    if (c.list) {
      parameters.push(
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }, description: 'Items per page.', example: 20 },
        { name: 'starting_after', in: 'query', required: false, schema: { type: 'string' }, description: "The id after which the page starts (the next, older page): the previous page's last id." },
        { name: 'ending_before', in: 'query', required: false, schema: { type: 'string' }, description: "The id before which the page ends (the previous, newer page): the current page's first id." },
      );
    }
    if (c.route.method === 'POST') parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 }, description: 'Retries with the same key repeat no side effect; the first answer is replayed for 24 hours.', example: 'order-1001' });
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
      tags: [tagOf(c.route)],
      summary: op.summary,
      description: c.route.deprecated ? `${op.description}\n\nDeprecated since ${c.route.deprecated.since}: use ${c.route.deprecated.use}. It answers until ${c.route.deprecated.sunset}.` : op.description,
      ...(c.route.deprecated ? { deprecated: true, 'x-sunset': c.route.deprecated.sunset } : {}),
      'x-release-stage': c.route.stage,
      'x-released': false,
      ...(c.field ? { 'x-graphql-field': (c.route as JsonRoute).field } : {}),
      'x-publishable-key': Boolean((op.access.publishable || (op.access.browser && 'create' in op.access.browser)) && !op.access.sandbox),
      // The browser booking of the embedded components: a publishable key with this booking's client_secret may call it.
      ...(op.access.browser && 'ownBooking' in op.access.browser ? { 'x-publishable-key-with-client-secret': true } : {}),
      'x-permission': op.access.permission,
      'x-error-codes': codes.map((d) => d.code),
      parameters,
      ...(bodySchema
        ? {
            requestBody: {
              // Required when the operation needs it, or when it has fields a caller must send.
              required: (args.required ?? []).includes(bodyArg!) || hasRequiredFields(bodySchema, args.$defs ?? {}),
              content: { 'application/json': { schema: restSchema(bodySchema), ...(example !== undefined ? { example: restExample(example) } : {}) } },
            },
          }
        : c.route.method === 'POST' && !isHandlerRoute(c.route)
          ? // An action that takes no fields (cancel-like, the sandbox's simulations): no body, or an empty object; any field in it is refused (parameter_unknown).
            { requestBody: { required: false, description: 'Takes no fields: send no body, or `{}`. A field in it is refused with `parameter_unknown`.', content: { 'application/json': { schema: { type: 'object', additionalProperties: false }, example: {} } } } }
          : {}),
      responses: {
        ...(answersError
          ? {}
          : {
              [String(c.route.status ?? 200)]: {
                description: 'Success',
                content: isHandlerRoute(c.route) && c.route.answers ? { ...c.route.answers } : { [mediaType]: { schema: success, ...withExample(successExample(c, returned, parameters)) } },
              },
            }),
        ...withErrorExample(errorResponses(codes), c.route),
      },
    };
  }

  const webhooks = webhookEntries(compiled, objectComponent, components);
  for (const name of answeredAtTop) {
    const held = Object.entries(components).some(([other, schema]) => other !== name && JSON.stringify(schema).includes(`"#/components/schemas/${name}"`));
    const component = components[name] as { required?: string[]; properties?: Record<string, Schema> };
    if (!held && component.properties?.object) {
      component.required = ['object', ...(component.required ?? [])];
      delete component.properties.object.description;
    }
  }
  const tags = [...new Set(Object.values(paths).flatMap((methods) => Object.values(methods).flatMap((o) => (o as { tags: string[] }).tags)))];
  const groups = new Map(routeGroups.map((g) => [g.tag, g.description]));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Rental platform developer API',
      version: 'v1',
      description: 'Proposed developer platform: no operation is released yet. `x-release-stage` marks the first public release; `x-error-codes` lists the error codes each operation can answer.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [
      ...tags.map((name) => ({ name, description: groups.get(name) ?? `Routes under /v1/${name}.` })),
      { name: 'webhooks', description: 'Events POSTed to your webhook endpoints (POST /v1/developers/webhooks), signed per Standard Webhooks.' },
    ],
    paths,
    webhooks,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_{live|test}_{pk|sk}_… API key' } } },
  };
}

/**
 * The `webhooks` section: one entry per event type of the catalogue, its payload the event
 * envelope with `type` fixed and `data.object` the REST shape of the object it is about.
 */
function webhookEntries(compiled: CompiledRoute[], objectComponent: (type: GraphQLObjectType) => string, components: Record<string, Schema>) {
  const schema = compiled[0]?.schema;
  if (!schema) return {};
  const typeOf = new Map<string, GraphQLObjectType>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) && !type.name.startsWith('__')) typeOf.set(snake(type.name).replace(/^_/, ''), type);
  }
  components.EventRequest = {
    type: 'object',
    description: 'The API request that caused the event; both null when the platform caused it (a job, a processor, the clock).',
    required: ['id', 'idempotency_key'],
    properties: {
      id: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The request id (req_...), as in the answer\'s Request-Id header.' },
      idempotency_key: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The Idempotency-Key the request carried.' },
    },
  };
  components.TestWebhookObject = {
    type: 'object',
    description: 'What a test send (POST /v1/test/webhooks/{endpoint_id}/send) carries in data.object instead of a real object.',
    required: ['object', 'id', 'endpoint_id', 'test', 'livemode'],
    properties: {
      object: { type: 'string', const: 'test_webhook' },
      id: { type: 'string' },
      endpoint_id: { type: 'string' },
      test: { type: 'boolean', const: true },
      livemode: { type: 'boolean', const: false },
    },
  };
  const entries: Record<string, unknown> = {};
  for (const type of EVENT_TYPES) {
    const { object, description } = EVENT_CATALOGUE[type];
    const graphqlType = typeOf.get(object);
    if (!graphqlType) throw new Error(`event ${type}: no GraphQL object type for its object '${object}'`);
    const name = `${camel(type)}Event`;
    const objectSchema = eventObjectComponent(objectComponent(graphqlType), EVENT_OBJECT_OMITS[object] ?? [], components);
    components[name] = {
      type: 'object',
      description: `The \`${type}\` event. ${description}`,
      required: ['id', 'object', 'type', 'api_version', 'created_at', 'business_id', 'livemode', 'data', 'request'],
      properties: {
        id: { type: 'string', description: 'The event id (evt_...); also the webhook-id header.' },
        object: { type: 'string', const: 'event' },
        type: { type: 'string', const: type },
        api_version: { type: 'string', const: 'v1' },
        created_at: { type: 'string', format: 'date-time', description: 'When the change that caused the event committed.' },
        business_id: { type: 'string', description: "The business the event is about (biz_...): your own, or, at an app's endpoint, the connected business's." },
        livemode: { type: 'boolean', description: 'The environment of the key (live or test) the change belongs to.' },
        data: {
          type: 'object',
          required: ['object'],
          properties: {
            object: {
              anyOf: [{ $ref: `#/components/schemas/${objectSchema}` }, { $ref: '#/components/schemas/TestWebhookObject' }],
              description: `The ${object.replace(/_/g, ' ')} as the REST API shows it, after the change.`,
            },
          },
        },
        request: { $ref: '#/components/schemas/EventRequest' },
      },
    };
    entries[type] = {
      post: {
        operationId: `webhook_${type.replace(/\./g, '_')}`,
        tags: ['webhooks'],
        summary: type,
        description: `${description} Sent to every enabled endpoint subscribed to \`${type}\` or \`*\`; answer 2xx within the timeout, or it is retried.`,
        parameters: WEBHOOK_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: {
          '2XX': { description: 'Received: no retry.' },
          default: { description: 'Not received (any other status, a timeout or a network error): the delivery is retried with backoff.' },
        },
      },
    };
  }
  return entries;
}

/** The component of an object as its events carry it: its REST shape less the fields events leave out. */
function eventObjectComponent(component: string, omits: readonly string[], components: Record<string, Schema>): string {
  if (!omits.length) return component;
  const name = `${component}EventObject`;
  if (components[name]) return name;
  const shape = components[component] as { properties: Record<string, Schema>; required: string[]; description?: string };
  components[name] = {
    ...shape,
    description: `${shape.description ?? component} As events carry it: without ${omits.map((f) => `\`${f}\``).join(', ')}.`,
    properties: Object.fromEntries(Object.entries(shape.properties).filter(([field]) => !omits.includes(field))),
    required: shape.required.filter((field) => !omits.includes(field)),
  };
  return name;
}
