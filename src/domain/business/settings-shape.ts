import { z } from 'zod';
import { businessSettingsSchema, type BusinessSettings } from './business-settings.ts';

/*
 * The settings API is derived from the one declaration of the settings
 * (business-settings.ts): a setting added there appears in the update's input (with its
 * limits), in the GraphQL and REST answers and in the settings table of docs/business-and-website.md without more code.
 */

export type SettingKind = 'int' | 'boolean' | 'string' | { enum: readonly string[] };

/** One value a business may set (`return_rules.grace_minutes`). */
export interface SettingLeaf {
  /** Its stored and REST name (snake_case). */
  key: string;
  /** Its GraphQL name (camelCase). */
  field: string;
  /** Its validation, without the default. */
  schema: z.ZodType;
  kind: SettingKind;
  description?: string;
}

/** A top-level setting: a value, or a group of values (`return_rules`). */
export type SettingEntry = SettingLeaf & { leaves?: SettingLeaf[]; typeName: string };

/** What each setting does, where business-settings.ts does not say it itself. */
const EFFECTS: Record<string, string> = {
  booking_approval_mode: 'automatic: a paid booking is confirmed at once; manual: it waits in booked for POST /v1/bookings/{id}/approve.',
  cancellation_window_hours: 'A cancellation at least this many hours before start_at is refunded in full.',
  late_cancellation_refund_percent: 'Share (0-100) of the payment refunded for a cancellation inside the window.',
  'security_deposit_defaults.required': "Whether new bookings of a vehicle with a deposit hold it (the deposit gate); false: the gate is not_required.",
  'included_mileage_defaults.miles_per_day': 'Miles per rental day a vehicle created without its own included_miles gets.',
  'pickup_rules.earliest_minutes_before_start': 'How long before start_at the pickup window opens (the pickup_window gate).',
  'return_rules.grace_minutes': 'Minutes after end_at before a rental still out becomes late (rental.late).',
  'return_rules.late_fee_cents_per_hour': 'A return past end_at and the grace creates a late_return charge of this much per started hour after end_at (0: none).',
  'identity_requirements.required': 'Whether new bookings need a verified identity (the identity gate).',
  'agreement_requirements.required': 'Whether new bookings need a signed rental agreement (the agreement gate).',
  'insurance_requirements.required': 'Whether new bookings need approved insurance (the insurance gate).',
};

const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const pascal = (key: string) => camel(key).replace(/^./, (c) => c.toUpperCase());

type Def = { type: string; innerType?: z.ZodType };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under its defaults (default, prefault, optional). */
function bare(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (['default', 'prefault', 'optional'].includes(defOf(current).type)) current = defOf(current).innerType!;
  return current;
}

function kindOf(schema: z.ZodType, where: string): SettingKind {
  const type = defOf(schema).type;
  if (type === 'number') return 'int';
  if (type === 'boolean' || type === 'string') return type;
  if (type === 'enum') return { enum: (schema as z.ZodEnum).options as string[] };
  throw new Error(`setting ${where}: a ${type} has no API shape yet`);
}

function leaf(key: string, schema: z.ZodType, where: string): SettingLeaf {
  const inner = bare(schema);
  return { key, field: camel(key), schema: inner, kind: kindOf(inner, where), description: schema.description ?? inner.description ?? EFFECTS[where] };
}

export const SETTINGS: readonly SettingEntry[] = Object.entries(businessSettingsSchema.shape).map(([key, schema]) => {
  const inner = bare(schema as z.ZodType);
  const typeName = pascal(key);
  if (defOf(inner).type !== 'object') return { ...leaf(key, schema as z.ZodType, key), typeName };
  const shape = (inner as z.ZodObject).shape as Record<string, z.ZodType>;
  return {
    key, field: camel(key), schema: inner, kind: 'string', typeName, description: (schema as z.ZodType).description,
    leaves: Object.entries(shape).map(([k, s]) => leaf(k, s, `${key}.${k}`)),
  };
});

/** A value of the input: its type and limits; null resets it to its default. */
function leafInput(l: SettingLeaf, typeName: string) {
  const schema = typeof l.kind === 'object' ? z.enum(l.kind.enum as [string, ...string[]]).meta({ id: typeName }) : l.schema;
  return schema.nullish().meta(l.description ? { description: `${l.description} Null resets it to the default.` } : { description: 'Null resets it to the default.' });
}

/** The update's input: every setting optional; groups merge; null resets a setting (or a whole group) to its default. */
export const settingsInput = z
  .object(
    Object.fromEntries(
      SETTINGS.map((s) => [
        s.field,
        s.leaves
          ? z
              .object(Object.fromEntries(s.leaves.map((l) => [l.field, leafInput(l, `${s.typeName}${pascal(l.key)}`)])))
              .meta({ id: `${s.typeName}Input`, description: `${s.key}: only the values sent change; null resets one to its default.` })
              .nullish()
          : leafInput(s, s.typeName),
      ]),
    ),
  )
  .meta({ id: 'BusinessSettingsInput' });

export type SettingsUpdate = z.output<typeof settingsInput>;
type Stored = Record<string, unknown>;

/**
 * The stored settings after an update. Only what the business set is stored (the rest reads
 * as the defaults), so a default that changes later reaches every business that never set it.
 */
export function applySettingsUpdate(stored: unknown, update: SettingsUpdate): Stored {
  const next: Stored = { ...((stored as Stored | null) ?? {}) };
  for (const s of SETTINGS) {
    const value = (update as Stored)[s.field];
    if (value === undefined) continue;
    if (value === null) {
      delete next[s.key];
      continue;
    }
    if (!s.leaves) {
      next[s.key] = value;
      continue;
    }
    const group: Stored = { ...((next[s.key] as Stored | undefined) ?? {}) };
    for (const l of s.leaves) {
      const v = (value as Stored)[l.field];
      if (v === null) delete group[l.key];
      else if (v !== undefined) group[l.key] = v;
    }
    if (Object.keys(group).length === 0) delete next[s.key];
    else next[s.key] = group;
  }
  return next;
}

/** The settings in their API representation (REST, events). */
export function presentSettings(settings: BusinessSettings, livemode: boolean) {
  return { object: 'business_settings', livemode, ...settings };
}

/** The defaults, as a business that set nothing has them. */
export const DEFAULT_SETTINGS: BusinessSettings = businessSettingsSchema.parse({});
