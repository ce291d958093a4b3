import { z } from 'zod';
import { validationError } from './errors.ts';

/** camelCase → snake_case, for naming the offending field the way the REST contract does. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * Parse input against a zod schema; the first issue becomes a `validation_error` whose
 * `param` is the field's contract name (snake_case, dotted for nested fields).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // Field names are ours (snake_case them); keys below `metadata` are the integrator's.
  const metadataAt = issue.path.indexOf('metadata');
  const param = issue.path.map((p, i) => (typeof p === 'string' && (metadataAt < 0 || i <= metadataAt) ? snakeCase(p) : String(p))).join('.');
  const missing = issue.code === 'invalid_type' && valueAt(input, issue.path) == null;
  return fail(param, missing ? `Missing required param: ${param}.` : `Invalid ${param}: ${issue.message}`, missing);
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function fail(param: string, message: string, missing: boolean): never {
  throw validationError(param || 'body', message, missing ? 'parameter_missing' : 'parameter_invalid');
}

const OFFSET_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** ISO 8601 timestamp that must carry a UTC offset (CONTRACT.md "Objects"). */
export const timestamp = z
  .union([z.date(), z.string()])
  .transform((value, ctx) => {
    if (value instanceof Date) return value;
    const date = OFFSET_TIMESTAMP.test(value) ? new Date(value) : new Date(NaN);
    if (Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: 'custom', message: 'expected an ISO 8601 timestamp with a UTC offset, e.g. 2026-12-01T10:00:00Z' });
      return z.NEVER;
    }
    return date;
  });

/** Metadata: up to 50 string keys (≤ 40 chars) with string values (≤ 500 chars). */
export const metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

/** Metadata of a new object: a key given as "" is simply not set. */
export const newMetadata = metadata.default({}).transform((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== '')));

/** Apply a metadata update: a key set to "" is removed (CONTRACT.md "Objects"). */
export function mergeMetadata(current: Record<string, string>, update: Record<string, string> | undefined): Record<string, string> {
  if (!update) return current;
  const next = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (value === '') delete next[key];
    else next[key] = value;
  }
  if (Object.keys(next).length > 50) throw validationError('metadata', 'Invalid metadata: at most 50 keys');
  return next;
}

export const money = z.number().int().min(0).max(100_000_000);
export const currency = z.string().regex(/^[a-z]{3}$/, 'expected an ISO 4217 code in lower case');
