import { filter, pipe } from 'graphql-yoga';
import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import { builder, type GraphQLContext } from '../builder.ts';
import type { Operation } from '../domain/shared/operation.ts';
import { enums, enumType } from './enums.ts';
import { nodeQuery, pageParams, toConnection } from './pagination.ts';
import { SELECT_MODE_MODELS } from './select-mode.ts';

/*
 * The GraphQL face of a domain operation. Its arguments and input types are derived from the
 * operation's one declaration (zod, through JSON Schema): the field only delegates to
 * `operation.call`, which checks access and validates before the rule runs. The operation
 * rides on the field's `extensions`, where the REST adapter and the OpenAPI document find it.
 */

/** The JSON Schema of an operation's arguments (input side), the form every consumer reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  enum?: unknown[];
  description?: string;
  additionalProperties?: unknown;
  'x-graphql'?: string;
  [keyword: string]: unknown;
}

export function argumentsSchema(operation: Operation): JsonSchema {
  return z.toJSONSchema(operation.args, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type TypeParam = any;
interface ArgSpec {
  type: TypeParam;
  required: boolean | { list: boolean; items: boolean };
  description?: string;
}

const inputTypes = new Map<string, TypeParam>();

const refName = (ref: string) => ref.replace(/^#\/\$defs\//, '');

/** The GraphQL type of a JSON Schema node, and whether null is allowed. */
function typeOf(schema: JsonSchema, defs: Record<string, JsonSchema>, where: string): { type: TypeParam; nullable: boolean; list?: { itemsNullable: boolean } } {
  if (schema.anyOf) {
    const others = schema.anyOf.filter((s) => s.type !== 'null');
    if (others.length !== 1) throw new Error(`${where}: unions have no GraphQL input type`);
    return { ...typeOf(others[0], defs, where), nullable: true };
  }
  if (Array.isArray(schema.type)) {
    const others = schema.type.filter((t) => t !== 'null');
    if (others.length !== 1) throw new Error(`${where}: unions have no GraphQL input type`);
    return { ...typeOf({ ...schema, type: others[0] }, defs, where), nullable: schema.type.includes('null') };
  }
  if (schema.$ref) {
    const name = refName(schema.$ref);
    const def = defs[name];
    if (!def) throw new Error(`${where}: no definition of ${name}`);
    if (def.enum) return { type: enums[name as keyof typeof enums] ?? enumType(name, def.enum as string[], def.description), nullable: false };
    return { type: inputObject(name, def, defs), nullable: false };
  }
  switch (schema.type) {
    case 'string':
      return { type: schema['x-graphql'] === 'ID' ? 'ID' : schema['x-graphql'] === 'DateTime' ? 'DateTime' : 'String', nullable: false };
    case 'integer':
      return { type: 'Int', nullable: false };
    case 'number':
      return { type: 'Float', nullable: false };
    case 'boolean':
      return { type: 'Boolean', nullable: false };
    case 'array': {
      const item = typeOf(schema.items ?? {}, defs, `${where}[]`);
      if (item.list) throw new Error(`${where}: lists of lists have no input type here`);
      return { type: [item.type], nullable: false, list: { itemsNullable: item.nullable } };
    }
    case 'object':
      if (schema.properties) throw new Error(`${where}: an input object needs a name (.meta({ id }))`);
      return { type: 'JSON', nullable: false };
    default:
      return { type: 'JSON', nullable: false };
  }
}

function argSpec(schema: JsonSchema, required: boolean, defs: Record<string, JsonSchema>, where: string): ArgSpec {
  const t = typeOf(schema, defs, where);
  const description = schema.description ?? (schema.anyOf?.find((s) => s.description)?.description as string | undefined);
  const nonNull = required && !t.nullable;
  return { type: t.type, required: t.list ? { list: nonNull, items: !t.list.itemsNullable } : nonNull, description };
}

/** A named input object, registered once (several operations share CustomerInput). */
function inputObject(name: string, schema: JsonSchema, defs: Record<string, JsonSchema>): TypeParam {
  const existing = inputTypes.get(name);
  if (existing) return existing;
  const fields = Object.entries(schema.properties ?? {}).map(([field, s]) => [field, argSpec(s, (schema.required ?? []).includes(field), defs, `${name}.${field}`)] as const);
  const ref = builder.inputType(name, {
    description: schema.description,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    fields: (t: any) => Object.fromEntries(fields.map(([field, spec]) => [field, t.field(spec)])),
  });
  inputTypes.set(name, ref);
  return ref;
}

type FieldBuilder = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Resolved = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Prepare an operation for GraphQL when its schema file loads (its input types are
 * registered then), and build its field in the file's `queryFields`/`mutationFields`.
 */
export function operationField(operation: Operation) {
  const schema = argumentsSchema(operation);
  const defs = schema.$defs ?? {};
  const specs = Object.entries(schema.properties ?? {}).map(([name, s]) => [name, argSpec(s, (schema.required ?? []).includes(name), defs, `${operation.name}(${name})`)] as const);
  const args = (t: FieldBuilder) => Object.fromEntries(specs.map(([name, spec]) => [name, t.arg(spec)]));
  const common = (t: FieldBuilder) => ({ args: args(t), description: operation.description, extensions: { operation } });

  return {
    /** A field that returns one Prisma-backed object, read with the query's selection. */
    prisma: (t: FieldBuilder, type: string, options: { nullable?: boolean } = {}) =>
      SELECT_MODE_MODELS.has(type)
        ? // One row of a select-mode type is read whole, with no plan (src/schema/select-mode.ts).
          t.field({ ...common(t), type, ...options, resolve: (_root: unknown, a: unknown, ctx: GraphQLContext) => operation.call(ctx.domain, a, { query: {}, answers: type }) })
        : t.prismaField({ ...common(t), type, ...options, resolve: (query: Resolved, _root: unknown, a: unknown, ctx: GraphQLContext) => operation.call(ctx.domain, a, { query, answers: type }) }),
    /** A field of any other type. */
    plain: (t: FieldBuilder, type: TypeParam) =>
      t.field({ ...common(t), type, resolve: (_root: unknown, a: unknown, ctx: GraphQLContext) => operation.call(ctx.domain, a) }),
    /** A Relay connection over a keyset page, newest first. */
    connection: (t: FieldBuilder, type: TypeParam) =>
      t.connection({
        ...common(t),
        type,
        resolve: async (_root: unknown, a: Resolved, ctx: GraphQLContext, info: GraphQLResolveInfo) =>
          toConnection(await operation.call(ctx.domain, a, { page: pageParams(a), query: nodeQuery(ctx, info) }) as Resolved, a),
      }),
    /**
     * A subscription: the operation checks access and the filter's arguments and returns the
     * filter; events come from the caller's topic.
     */
    subscription: <E>(t: FieldBuilder, type: TypeParam, topic: (ctx: GraphQLContext) => AsyncIterable<E>, resolve: (event: E, ctx: GraphQLContext) => unknown) =>
      t.field({
        ...common(t),
        type,
        subscribe: async (_root: unknown, a: unknown, ctx: GraphQLContext) => {
          const passes = (await operation.call(ctx.domain, a)) as (event: E) => boolean;
          return pipe(topic(ctx), filter((event: E) => passes(event)));
        },
        resolve: (event: E, _a: unknown, ctx: GraphQLContext) => resolve(event, ctx),
      }),
  };
}
