import { snakeCase } from './validation.ts';

/**
 * The public fields of an object, declared once per aggregate. The Pothos types expose
 * exactly these (src/schema/fields.ts) and events serialize rows with them, so a webhook's
 * `data.object` and a REST answer show the same object.
 */
export type FieldKind = 'id' | 'string' | 'int' | 'boolean' | 'datetime' | 'json' | 'strings' | { enum: string };

export interface FieldSpec {
  kind: FieldKind;
  nullable?: boolean;
  description?: string;
}

export type PublicFields = Record<string, FieldSpec>;

/** The REST/event representation of a row: `object`, then each public field in snake_case. */
export function present(objectName: string, fields: PublicFields, row: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const out: Record<string, unknown> = { object: objectName };
  for (const name of Object.keys(fields)) {
    const value = row[name];
    out[snakeCase(name)] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return { ...out, ...extra };
}
