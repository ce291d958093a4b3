import { z } from 'zod';
import { CommonErrors } from './common.errors.ts';

/*
 * The building blocks of operation inputs. An input is declared once, in zod, beside its use
 * case; the GraphQL arguments, REST coercion, validation and the OpenAPI request schema
 * (types, limits, enums, formats, descriptions) are all derived from that declaration
 * (src/schema/operation-field.ts, rest-adapter/openapi.ts). Markers in `meta`:
 * `x-graphql` names the GraphQL scalar of a string (`ID`, `DateTime`); `id` names an input
 * object or enum type.
 */

/** camelCase → snake_case, for naming the offending field the way the REST contract does. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

const RANGE = /^(.+?)(Gte|Gt|Lte|Lt)$/;

/**
 * The contract's name of a query parameter: snake_case, and range bounds in Stripe's
 * brackets (`createdGte` → `created[gte]`, `startAtLt` → `start_at[lt]`).
 */
export function paramName(name: string): string {
  const range = RANGE.exec(name);
  return range ? `${snakeCase(range[1])}[${range[2].toLowerCase()}]` : snakeCase(name);
}

/**
 * Parse input against a zod schema; the first issue becomes a `validation_error` whose
 * `param` is the field's contract name (snake_case, dotted for nested fields). The `input`
 * argument is the request body, so its name is not part of the path.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.path[0] === 'input' ? issue.path.slice(1) : issue.path;
  // Field names are ours (snake_case them); keys below `metadata` are the integrator's.
  const metadataAt = path.indexOf('metadata');
  const name = (p: PropertyKey, i: number) => (typeof p !== 'string' || (metadataAt >= 0 && i > metadataAt) ? String(p) : i === 0 && issue.path[0] !== 'input' ? paramName(p) : snakeCase(p));
  const param = path.map(name).join('.') || 'body';
  const missing = issue.code === 'invalid_type' && valueAt(input, issue.path) == null;
  throw missing ? CommonErrors.parameterMissing(param) : CommonErrors.parameterInvalid(param, `Invalid ${param}: ${issue.message}`);
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** An object id (`bk_...`). Any string may be looked up: an id that does not exist is 404, never 422. */
export const id = (description?: string) => z.string().min(1).max(100).meta({ 'x-graphql': 'ID', ...(description ? { description } : {}) });

const OFFSET_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/i;
const TIMESTAMP_HELP = 'expected an ISO 8601 timestamp with a UTC offset, e.g. 2026-12-01T10:00:00Z';
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * An ISO 8601 timestamp with a UTC offset (the contract's "Objects"), read strictly: a day
 * the calendar does not have (2027-02-30) or a year outside 1970–9999 is refused, never
 * rolled over to another day.
 */
export function parseTimestamp(value: string): Date | string {
  const m = OFFSET_TIMESTAMP.exec(value);
  if (!m) return TIMESTAMP_HELP;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
  if (year < 1970 || year > 9999) return 'expected a year between 1970 and 9999';
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return `${m[1]}-${m[2]}-${m[3]} is not a day of the calendar`;
  if (hour > 23 || minute > 59 || second > 59) return 'expected a time of day between 00:00:00 and 23:59:59';
  if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return 'expected a UTC offset between -23:59 and +23:59';
  return new Date(value);
}

/** ISO 8601 timestamp that must carry a UTC offset; parsed to a Date. */
export const timestamp = (description?: string, example?: string) =>
  z
    .string()
    .max(40)
    .meta({ format: 'date-time', 'x-graphql': 'DateTime', ...(description ? { description } : {}), ...(example ? { examples: [example] } : {}) })
    .transform((value, ctx) => {
      const parsed = parseTimestamp(value);
      if (typeof parsed === 'string') {
        ctx.addIssue({ code: 'custom', message: parsed });
        return z.NEVER;
      }
      return parsed;
    });

/** Metadata: up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars). */
export const metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
  .meta({ description: 'Up to 50 keys (at most 40 characters) with string values (at most 500). On an update, a key set to "" is removed.' });

/** Metadata of a new object: a key given as "" is simply not set. */
export const newMetadata = metadata.optional().transform((m) => Object.fromEntries(Object.entries(m ?? {}).filter(([, v]) => v !== '')));

/** Apply a metadata update: a key set to "" is removed (the contract's "Objects"). */
export function mergeMetadata(current: Record<string, string>, update: Record<string, string> | null | undefined): Record<string, string> {
  if (!update) return current;
  const next = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (value === '') delete next[key];
    else next[key] = value;
  }
  if (Object.keys(next).length > 50) throw CommonErrors.parameterInvalid('metadata', 'Invalid metadata: at most 50 keys');
  return next;
}

/** The most any amount may be, in minor units (a charge, a refund, a price). */
export const MAX_AMOUNT_CENTS = 100_000_000;

export const money = (description?: string) => z.number().int().min(0).max(MAX_AMOUNT_CENTS).meta(description ? { description } : {});
export const currency = z.string().regex(/^[a-z]{3}$/, 'expected an ISO 4217 code in lower case').meta({ description: 'ISO 4217 code, lower case (usd).' });
