import fc from 'fast-check';

/*
 * Inputs for the route fuzz, drawn from a route's own OpenAPI request schema (generated from
 * its operation's declaration): mostly values of the declared shape, often at or past its
 * limits, and the hostile classes real clients send (NUL, unpaired surrogates, card numbers,
 * impossible dates, wrong types, unknown keys, `__proto__`, deep nesting).
 */

type Schema = Record<string, any>;

/** Real ids of the caller's objects, by field name (`vehicle_id`), so that input reaches past the lookup. */
export type IdSource = (field: string) => string | undefined;
const noIds: IdSource = () => undefined;

const HOSTILE_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '%', '%zz', '%E0%A4%A', '__proto__', 'null', 'undefined', '-1', '1e309',
  '<script>alert(1)</script>', "'; drop table \"Booking\"; --", 'ref 12 4242 4242 4242 4242', '4242\u00a04242\u00a04242\u00a04242', '💳🚗'.repeat(30),
  'x'.repeat(5_000), '2027-02-30T10:00:00Z', '0000-01-01T00:00:00Z', '2027-03-01T10:00:00', '2027-13-01T10:00:00Z', '9999-12-31T23:59:59Z', 'bk_', 'veh_0',
];
const HOSTILE_NUMBERS = [-1, 0, 1, 2 ** 31, -(2 ** 31), Number.MAX_SAFE_INTEGER, 1.5, 1e20, -0.0001];

/** Timestamps a few days to a few years ahead, at whole minutes: the valid ones. */
const futureTimestamp = fc.integer({ min: 1, max: 2_000 }).map((days) => new Date(Math.floor(Date.now() / 60_000) * 60_000 + days * 86_400_000).toISOString());

/** Any JSON value, sometimes of the wrong type for where it lands. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(fc.constantFrom(null, true, 0, -1, '', 'x', [], {}), fc.jsonValue({ maxDepth: 2 }));

function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (schema.enum) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(schema.enum as string[])) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) });
  if (schema.format === 'date-time') return fc.oneof({ weight: 3, arbitrary: futureTimestamp }, { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((s) => /\d{4}/.test(s) || s === '')) });
  const max = Math.min(schema.maxLength ?? 60, 300);
  return fc.oneof(
    { weight: 2, arbitrary: fc.string({ minLength: schema.minLength ?? 0, maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  );
}

function numberOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1_000;
  const max = schema.maximum ?? 1_000_000;
  const inRange = integer ? fc.integer({ min: Math.max(min, -1e9), max: Math.min(max, 1e9) }) : fc.double({ min, max, noNaN: true });
  return fc.oneof({ weight: 3, arbitrary: inRange }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS, min - 1, max + 1) });
}

/** A value for `schema` (JSON Schema 2020-12, refs into `components`). */
export function valueOf(schema: Schema, components: Record<string, Schema>, depth = 0, ids: IdSource = noIds): fc.Arbitrary<unknown> {
  if (schema.$ref) return valueOf(components[String(schema.$ref).split('/').pop()!], components, depth, ids);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s: Schema) => valueOf(s, components, depth, ids)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  const typed = ((): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        return stringOf(schema);
      case 'integer':
        return numberOf(schema, true);
      case 'number':
        return numberOf(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(valueOf(schema.items ?? {}, components, depth + 1, ids), { maxLength: depth > 2 ? 1 : 4 });
      case 'object':
        return objectOf(schema, components, depth, ids);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  })();
  return fc.oneof({ weight: 9, arbitrary: typed }, { weight: 1, arbitrary: wrongValue });
}

/** An object of the schema: required keys mostly present, optional ones sometimes, now and then an unknown key. */
export function objectOf(schema: Schema, components: Record<string, Schema>, depth = 0, ids: IdSource = noIds): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>(schema.required ?? []);
  if (Object.keys(properties).length === 0) {
    // A record (metadata): string keys, string values, at or past its limits.
    return fc.dictionary(fc.oneof(fc.string({ maxLength: 45 }), fc.constantFrom('__proto__', 'a\u0000', 'constructor')), fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('', 'x'.repeat(501)), wrongValue), { maxKeys: depth > 1 ? 2 : 6 });
  }
  const entries = Object.entries(properties).map(([key, s]) => {
    const real = ids(key);
    const value = real ? fc.oneof({ weight: 3, arbitrary: fc.constant(real) }, { weight: 1, arbitrary: valueOf(s, components, depth + 1, ids) }) : valueOf(s, components, depth + 1, ids);
    return [key, required.has(key) ? fc.option(value, { freq: 12, nil: undefined }) : fc.option(value, { freq: 2, nil: undefined })] as const;
  });
  const known = fc.record(Object.fromEntries(entries)).map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
  return fc.tuple(known, fc.option(fc.tuple(fc.constantFrom('zz_unknown', 'camelCase', 'id'), wrongValue), { freq: 8, nil: undefined })).map(([o, extra]) =>
    extra ? { ...o, [extra[0]]: extra[1] } : o,
  );
}

/** A body as sent over the wire: JSON of the schema's object, or one of the shapes a body must not take. */
export function bodyTextOf(schema: Schema | undefined, components: Record<string, Schema>, ids: IdSource = noIds): fc.Arbitrary<string> {
  const object = schema ? (valueOf(schema, components, 0, ids).filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v)) as fc.Arbitrary<Record<string, unknown>>) : fc.constant({});
  const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  return fc.oneof(
    { weight: 12, arbitrary: object.map((o) => JSON.stringify(o)) },
    { weight: 1, arbitrary: object.map((o) => JSON.stringify(o).replace(/^\{/, '{"__proto__":{"x":"y"},').replace(',}', '}')) },
    { weight: 1, arbitrary: fc.constantFrom('[]', '"x"', '1', 'null', '{"a":', '{', '', nested(40), nested(3_000), `{"metadata":${nested(50)}}`) },
  );
}

/** Path segments a client may send in place of an id: a real one of the caller, an unknown one, or garbage. */
export function pathSegmentOf(realIds: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...realIds) },
    { weight: 2, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', 'bk_%00x', '%ED%A0%80', 'a'.repeat(400), '%F0%9F%92%B3', 'unknown_0123', '%2F') },
    // Dot segments are resolved by the client's URL parser before they are sent: not ours to test.
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s !== '.' && s !== '..').map((s) => encodeURIComponent(s)) },
  );
}

/** Every path to a value in `value` (objects and arrays walked), for mutations. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [path];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.length ? entries.flatMap(([k, v]) => leaves(v, [...path, k])) : [path];
}

function setAt(value: unknown, path: (string | number)[], next: unknown): unknown {
  if (path.length === 0) return next;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[path[0]] = setAt(copy[path[0]], path.slice(1), next);
  return copy;
}

function withoutAt(value: unknown, path: (string | number)[]): unknown {
  if (path.length === 1 && value && typeof value === 'object' && !Array.isArray(value)) {
    const { [path[0]]: _gone, ...rest } = value as Record<string, unknown>;
    return rest;
  }
  if (path.length <= 1) return value;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[path[0]] = withoutAt(copy[path[0]], path.slice(1));
  return copy;
}

/** The example with the caller's real ids in its `*_id` fields (metadata keys stay the integrator's). */
export function withRealIds(value: unknown, ids: IdSource, key = ''): unknown {
  if (typeof value === 'string' && key.endsWith('_id')) return ids(key) ?? value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => withRealIds(v, ids));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, key === 'metadata' ? v : withRealIds(v, ids, k)]));
}

/**
 * A valid request (the operation's example, with real ids) with at most two mutations: a
 * field set to a hostile or wrong value, a field removed, an unknown key added. Most of it
 * passes validation, so the hostile value reaches as deep as it can.
 */
export function mutatedBodyOf(example: Record<string, unknown>, ids: IdSource): fc.Arbitrary<string> {
  const base = withRealIds(example, ids) as Record<string, unknown>;
  const paths = leaves(base).filter((p) => p.length > 0);
  const valueAt = (p: (string | number)[]) => p.reduce((v: any, k) => v?.[k], base);
  /** What to put in place of a leaf: for text, mostly what must never reach the database. */
  const hostileFor = (current: unknown): fc.Arbitrary<unknown> =>
    typeof current === 'string'
      ? fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom('\u0000', `${current}\u0000`, '\ud800', `${current}\udfff`) },
          { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
          { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
          { weight: 1, arbitrary: wrongValue },
        )
      : typeof current === 'number'
        ? fc.oneof(fc.constantFrom(...HOSTILE_NUMBERS), fc.constantFrom('1', '', '\u0000'), wrongValue)
        : wrongValue;
  const added = { weight: 1, arbitrary: fc.tuple(fc.constantFrom('zz_unknown', 'metadata'), wrongValue).map(([k, v]) => (o: unknown) => ({ ...(o as object), [k]: v })) };
  // An empty example (an action that takes no fields): nothing to change or drop, only fields to add.
  const mutation = paths.length
    ? fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...paths).chain((p) => hostileFor(valueAt(p)).map((v) => (o: unknown) => setAt(o, p, v))) },
        { weight: 1, arbitrary: fc.constantFrom(...paths).map((p) => (o: unknown) => withoutAt(o, p)) },
        added,
      )
    : fc.oneof(added);
  return fc.array(mutation, { minLength: 0, maxLength: 2 }).map((ms) => JSON.stringify(ms.reduce((o: unknown, m) => m(o), base)));
}
