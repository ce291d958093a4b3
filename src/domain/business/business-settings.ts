import { z } from 'zod';
import type { Db, DomainContext } from '../shared/context.ts';

/** The terms of a business that has not written its own. */
export const DEFAULT_AGREEMENT_TERMS = [
  'The renter is the only authorized driver unless the business agrees otherwise in writing, and holds a valid driving licence for the whole rental.',
  "The vehicle is returned by the end of the rental period, in the condition it was picked up in, ordinary wear excepted. A late return may be charged under the business's return rules.",
  "Miles driven beyond the included miles are charged at the mileage fee stated above. Fuel, tolls, fines and cleaning beyond ordinary use are the renter's.",
  "The security deposit is held on the renter's card for the rental and released after the return, less any charges for damage, mileage, fuel, tolls, late return or cleaning.",
  'The renter reports any accident, damage or theft to the business at once, and does not use the vehicle for hire, racing, towing, or off public roads.',
].join('\n\n');

/**
 * Rental settings of a business (the spec, "Named field sets"). Stored as JSON; every read
 * goes through `readSettings`, so missing keys take these defaults.
 */
export const businessSettingsSchema = z.object({
  booking_approval_mode: z.enum(['automatic', 'manual']).default('automatic'),
  /** Cancellations at least this many hours before start_at are refunded in full. */
  cancellation_window_hours: z.number().int().min(0).max(24 * 90).default(24),
  /** Share of the rental refunded for a cancellation inside the window. */
  late_cancellation_refund_percent: z.number().int().min(0).max(100).default(0),
  security_deposit_defaults: z.object({ required: z.boolean().default(true) }).prefault({}),
  included_mileage_defaults: z.object({ miles_per_day: z.number().int().min(0).default(200) }).prefault({}),
  pickup_rules: z.object({ earliest_minutes_before_start: z.number().int().min(0).default(60) }).prefault({}),
  return_rules: z
    .object({
      grace_minutes: z.number().int().min(0).default(59),
      /** Charged per started hour after end_at when a rental comes back past its grace (0: no late_return charge). */
      late_fee_cents_per_hour: z.number().int().min(0).max(1_000_000).default(0),
    })
    .prefault({}),
  identity_requirements: z.object({ required: z.boolean().default(true) }).prefault({}),
  agreement_requirements: z
    .object({
      required: z.boolean().default(true),
      /** The business's own terms, printed in every rental agreement it sends. */
      terms: z.string().trim().min(1).max(20_000).default(DEFAULT_AGREEMENT_TERMS),
    })
    .prefault({}),
  insurance_requirements: z.object({ required: z.boolean().default(false) }).prefault({}),
});

export type BusinessSettings = z.output<typeof businessSettingsSchema>;

export function readSettings(stored: unknown): BusinessSettings {
  const parsed = businessSettingsSchema.safeParse(stored ?? {});
  // Stored settings were validated on write; a row from an older shape falls back to defaults.
  return parsed.success ? parsed.data : businessSettingsSchema.parse({});
}

/** The stored settings of one environment: production's `settings`, the sandbox's `sandboxSettings`. */
export const settingsColumn = (livemode: boolean) => (livemode ? 'settings' : 'sandboxSettings');

/** A business's rental settings in one environment (defaults filled in). */
export async function settingsOf(db: Pick<Db, 'business'>, businessId: string, livemode: boolean): Promise<BusinessSettings> {
  const business = await db.business.findUnique({ where: { id: businessId }, select: { settings: true, sandboxSettings: true } });
  return readSettings(livemode ? business?.settings : business?.sandboxSettings);
}

/**
 * The calling business's rental settings in the caller's environment (defaults filled in),
 * currency and time zone (which dates rental days for weekend and seasonal rates), in one
 * read of the environment's own settings column.
 */
export async function loadSettings(ctx: Pick<DomainContext, 'db' | 'tenant'>) {
  const column = settingsColumn(ctx.tenant.livemode);
  const business = (await ctx.db.business.findUnique({ where: { id: ctx.tenant.businessId }, select: { [column]: true, currency: true, timezone: true } })) as
    | ({ currency: string; timezone: string } & Partial<Record<typeof column, unknown>>)
    | null;
  return { settings: readSettings(business?.[column]), currency: business?.currency ?? 'usd', timeZone: business?.timezone ?? 'UTC' };
}
