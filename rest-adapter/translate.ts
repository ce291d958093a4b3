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
 * The GraphQL selection set of a REST object, each field under its REST name (an alias where
 * the names differ, `dailyRateCents` as `daily_rate_cents`), so that the result is already the
 * REST object, keys in the REST order, and `toRest` has only `object` left to set: it is selected
 * first as `object: __typename` (entities always, and whatever a route answers at the top, such
 * as `pickup_readiness`), or as the type's own `object` field when it has one.
 */
export function selectionOf(type: GraphQLObjectType, top = false): string {
  const { fields } = restShape(type);
  const own = fields.find((f) => f.restName === 'object');
  const parts = own ? [aliased(own)] : top || isEntity(type) ? ['object: __typename'] : [];
  for (const field of fields) if (field !== own) parts.push(aliased(field));
  return parts.join(' ');
}

function aliased(field: RestShape['fields'][number]): string {
  const named = getNamedType(field.type);
  const selected = isObjectType(named) ? `${field.name} { ${selectionOf(named)} }` : field.name;
  return field.restName === field.name ? selected : `${field.restName}: ${selected}`;
}

/**
 * A result of `selectionOf`'s selection → the REST object. Its keys are the REST names already;
 * what is left is `object`, which GraphQL answers with the type's name (`Vehicle` → `vehicle`),
 * at every level that has it. Done in place: the result is made for this answer only. JSON
 * values are left as they are.
 */
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
    convert = (value) => {
      if (value === null || value === undefined) return null;
      items ??= converterOf(nullable.ofType);
      if (items === asIs) return value;
      const list = value as unknown[];
      for (let i = 0; i < list.length; i++) list[i] = items(list[i]);
      return list;
    };
  } else if (isObjectType(nullable)) {
    const shape = restShape(nullable);
    // A type's own `object` field is its REST `object` (selectionOf): nothing to name.
    const named = !shape.fields.some((f) => f.restName === 'object');
    // The fields whose values hold objects, looked up on first use: a type may contain itself.
    let nested: { restName: string; convert: Convert }[] | undefined;
    convert = (value) => {
      if (value === null || value === undefined) return null;
      const out = value as Record<string, unknown>;
      if (named && typeof out.object === 'string') out.object = out.object === nullable.name ? shape.object : snake(out.object).replace(/^_/, '');
      nested ??= shape.fields.flatMap((f) => (isObjectType(getNamedType(f.type)) ? [{ restName: f.restName, convert: converterOf(f.type) }] : []));
      for (const field of nested) if (field.restName in out) out[field.restName] = field.convert(out[field.restName]);
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
