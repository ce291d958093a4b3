import {
  getNamedType, getNullableType, isEnumType, isInputObjectType, isListType, isObjectType, isScalarType,
  type GraphQLField, type GraphQLInputObjectType, type GraphQLInputType, type GraphQLObjectType, type GraphQLOutputType,
} from 'graphql';
import { CommonErrors } from '../src/domain/shared/common.errors.ts';
import { paramName } from '../src/domain/shared/validation.ts';

/** camelCase → snake_case (REST names); the inverse is looked up from the schema, never guessed. */
export const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** REST names of the Relay arguments of list routes (the contract's "Lists"). */
const LIST_PARAMS: Record<string, string> = { first: 'limit', after: 'starting_after', before: 'ending_before' };
/** An argument's REST query parameter: Relay's arguments by their list names (`limit`), the rest by the contract's names (`created[gte]`). */
export const restParamName = (argName: string): string => LIST_PARAMS[argName] ?? paramName(argName);

/** An object with an `id` is an entity: nested, it appears as its `<name>_id` field instead. */
export const isEntity = (type: GraphQLObjectType) => 'id' in type.getFields();

export const isConnection = (type: GraphQLObjectType) => type.name.endsWith('Connection') && 'edges' in type.getFields() && 'pageInfo' in type.getFields();

/**
 * Fields a REST answer shows: scalars, enums and value objects; no relations, no arguments,
 * but for a relation its type marks for embedding (`extensions.restEmbed`: a conversation's
 * messages).
 */
function restFields(type: GraphQLObjectType): GraphQLField<unknown, unknown>[] {
  return Object.values(type.getFields()).filter((f) => {
    if (f.extensions?.restEmbed === true) return true;
    if (f.args.some((a) => a.type.toString().endsWith('!'))) return false;
    const named = getNamedType(f.type);
    return isScalarType(named) || isEnumType(named) || (isObjectType(named) && !isEntity(named) && !isConnection(named));
  });
}

interface RestShape {
  object: string | null;
  fields: { name: string; restName: string; type: GraphQLOutputType }[];
}

// A schema's types do not change once built: each type's REST shape is worked out once.
const restShapes = new WeakMap<GraphQLObjectType, RestShape>();
function restShape(type: GraphQLObjectType): RestShape {
  let shape = restShapes.get(type);
  if (!shape) {
    shape = { object: snake(type.name).replace(/^_/, ''), fields: restFields(type).map((f) => ({ name: f.name, restName: snake(f.name), type: f.type })) };
    restShapes.set(type, shape);
  }
  return shape;
}

/**
 * The GraphQL selection set of a REST object (`__typename` names its `object`: entities
 * always, and whatever a route answers at the top, such as `pickup_readiness`).
 */
export function selectionOf(type: GraphQLObjectType, top = false): string {
  const parts = top || isEntity(type) ? ['__typename'] : [];
  for (const field of restFields(type)) {
    const named = getNamedType(field.type);
    parts.push(isObjectType(named) ? `${field.name} { ${selectionOf(named)} }` : field.name);
  }
  return parts.join(' ');
}

/** A GraphQL result → the REST object: snake_case keys, `object` from the type name. JSON values are left as they are. */
export function toRest(value: unknown, type: GraphQLOutputType): unknown {
  return converterOf(type)(value);
}

type Convert = (value: unknown) => unknown;
const asIs: Convert = (value) => value ?? null;
// Worked out once per output type (a schema's types do not change): what a value of it becomes.
const converters = new WeakMap<object, Convert>();
function converterOf(type: GraphQLOutputType): Convert {
  let convert = converters.get(type);
  if (convert) return convert;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    let items: Convert | undefined;
    const item = (v: unknown) => (items ??= converterOf(nullable.ofType))(v);
    convert = (value) => (value === null || value === undefined ? null : (value as unknown[]).map(item));
  } else if (isObjectType(nullable)) {
    const shape = restShape(nullable);
    // Fields' converters are looked up on first use: a type may contain itself.
    // (A scalar's value is kept as it is: no call for it.)
    let fields: { name: string; restName: string; convert: Convert | null }[] | undefined;
    convert = (value) => {
      if (value === null || value === undefined) return null;
      fields ??= shape.fields.map((f) => {
        const of = converterOf(f.type);
        return { name: f.name, restName: f.restName, convert: of === asIs ? null : of };
      });
      const source = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      if (typeof source.__typename === 'string') out.object = source.__typename === nullable.name ? shape.object : snake(source.__typename).replace(/^_/, '');
      for (const field of fields) {
        if (!(field.name in source)) continue;
        const v = source[field.name];
        out[field.restName] = field.convert === null ? (v ?? null) : field.convert(v);
      }
      return out;
    };
  } else convert = asIs;
  converters.set(type, convert);
  return convert;
}

const inputNamesByType = new WeakMap<GraphQLInputObjectType, Map<string, string>>();
/** An input type's REST names (snake_case) → its field names. */
function inputNames(type: GraphQLInputObjectType): Map<string, string> {
  let names = inputNamesByType.get(type);
  if (!names) inputNamesByType.set(type, (names = new Map(Object.keys(type.getFields()).map((name) => [snake(name), name]))));
  return names;
}

/**
 * A REST input (snake_case) → GraphQL variables (camelCase), guided by the input type so
 * that JSON values (metadata) keep their keys. Unknown keys stay as written, so that
 * a key the type does not have (camelCase spellings included) is a 422 `parameter_unknown`.
 */
export function fromRest(value: unknown, type: GraphQLInputType, path: string[] = []): unknown {
  if (value === null || typeof value !== 'object') return value;
  const nullable = getNullableType(type);
  if (isListType(nullable)) return Array.isArray(value) ? value.map((v, i) => fromRest(v, nullable.ofType, [...path, String(i)])) : value;
  if (!isInputObjectType(nullable) || Array.isArray(value)) return value;
  const fields = nullable.getFields();
  const bySnake = inputNames(nullable);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = bySnake.get(key);
    if (!name) {
      throw CommonErrors.parameterUnknown([...path, key].join('.'));
    }
    out[name] = fromRest(v, fields[name].type, [...path, key]);
  }
  return out;
}
