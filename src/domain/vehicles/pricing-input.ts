import { z } from 'zod';
import type { Vehicle } from '../../generated/prisma/client.ts';
import { seasonalRatesOf, WEEKDAYS } from '../quotes/pricing.ts';
import { money } from '../shared/validation.ts';

/*
 * The inputs of a vehicle's pricing rules, and their stored (API) form: JSON columns keep
 * the snake_case names the API shows, so a vehicle's `delivery_options` reads the same over
 * REST, GraphQL and in events.
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date (YYYY-MM-DD) that exists. */
export const calendarDate = (description: string) =>
  z
    .string()
    .max(10)
    .meta({ format: 'date', description })
    .refine((v) => {
      const m = ISO_DATE.exec(v);
      if (!m) return false;
      const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
      return Number(m[1]) >= 1970 && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
    }, 'expected a calendar date YYYY-MM-DD');

export const weekdayName = z.enum(WEEKDAYS).meta({ id: 'Weekday' });

export const seasonalRateInput = z
  .object({
    name: z.string().trim().min(1).max(100).nullish().meta({ description: 'A label shown on priced days, e.g. "Summer".' }),
    startDate: calendarDate('First day of the season (inclusive), in the business time zone.'),
    endDate: calendarDate('Last day of the season (inclusive).'),
    dailyRateCents: money('Price of each rental day in the season.').refine((v) => v > 0, 'must be positive'),
  })
  .meta({ id: 'SeasonalRateInput' });

/** Seasons: each a valid range, none overlapping another (so one rule prices a day). */
export const seasonalRatesInput = z
  .array(seasonalRateInput)
  .max(50)
  .superRefine((rates, ctx) => {
    rates.forEach((r, i) => {
      if (typeof r.startDate === 'string' && typeof r.endDate === 'string' && r.endDate < r.startDate) {
        ctx.addIssue({ code: 'custom', path: [i, 'endDate'], message: 'must not be before start_date' });
      }
    });
    const sorted = rates.map((r, i) => ({ ...r, i })).sort((a, b) => a.startDate.localeCompare(b.startDate));
    for (let k = 1; k < sorted.length; k++) {
      if (sorted[k].startDate <= sorted[k - 1].endDate) {
        ctx.addIssue({ code: 'custom', path: [sorted[k].i, 'startDate'], message: `overlaps the season ${sorted[k - 1].startDate} – ${sorted[k - 1].endDate}` });
        return;
      }
    }
  })
  .meta({ description: 'Date ranges with their own daily rate; they replace the current list. Seasons may not overlap.' });

/** One delivery option; a key it does not have is refused, not dropped. */
export const deliveryOptionInput = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ description: 'e.g. "Airport delivery"; a quote chooses the option by this name.' }),
    feeCents: money('Fee of this option, added to the total of a quote or booking that chooses it.'),
    description: z.string().trim().max(500).nullish().meta({ description: 'Shown to the customer beside the name.' }),
  })
  .meta({ id: 'DeliveryOptionInput', description: 'A way the vehicle reaches the customer, with its fee.' });

/** The most delivery options a vehicle has. */
export const MAX_DELIVERY_OPTIONS = 20;

/** A vehicle's delivery options; names are unique, since a quote chooses one by its name. */
export const deliveryOptionsInput = z
  .array(deliveryOptionInput)
  .max(MAX_DELIVERY_OPTIONS)
  .superRefine((options, ctx) => {
    const seen = new Set<string>();
    options.forEach((o, i) => {
      if (seen.has(o.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `another delivery option is already named '${o.name}'` });
      seen.add(o.name);
    });
  })
  .meta({ description: `How the vehicle reaches the customer, with fees (at most ${MAX_DELIVERY_OPTIONS}, names unique); they replace the current list.` });

export type SeasonalRateValues = z.output<typeof seasonalRateInput>;
export type DeliveryOptionValues = z.output<typeof deliveryOptionInput>;

export const storedSeasonalRates = (rates: SeasonalRateValues[]) =>
  [...rates]
    .sort((a, b) => a.startDate.localeCompare(b.startDate))
    .map((r) => ({ name: r.name ?? null, start_date: r.startDate, end_date: r.endDate, daily_rate_cents: r.dailyRateCents }));

export const storedDeliveryOptions = (options: DeliveryOptionValues[]) => options.map((o) => ({ name: o.name, fee_cents: o.feeCents, description: o.description ?? null }));

/** A vehicle's pricing rules as the pricing operations answer them (GraphQL names). */
export function pricingView(vehicle: Vehicle) {
  const options = Array.isArray(vehicle.deliveryOptions) ? (vehicle.deliveryOptions as Record<string, unknown>[]) : [];
  return {
    vehicleId: vehicle.id,
    livemode: vehicle.livemode,
    currency: vehicle.currency,
    dailyRateCents: vehicle.dailyRateCents,
    weekendRateCents: vehicle.weekendRateCents,
    weekendDays: vehicle.weekendDays,
    seasonalRates: seasonalRatesOf(vehicle.seasonalRates).map((r) => ({ name: r.name ?? null, startDate: r.start_date, endDate: r.end_date, dailyRateCents: r.daily_rate_cents })),
    unlimitedMilesDailyCents: vehicle.unlimitedMilesDailyCents,
    depositCents: vehicle.depositCents,
    includedMiles: vehicle.includedMiles,
    extraMileFeeCents: vehicle.extraMileFeeCents,
    // Options stored before fees existed (free-form) read as free of charge.
    deliveryOptions: options
      .filter((o) => o !== null && typeof o === 'object')
      .map((o) => ({
        name: typeof o.name === 'string' ? o.name : typeof o.type === 'string' ? o.type : 'delivery',
        feeCents: Number.isInteger(o.fee_cents) ? (o.fee_cents as number) : 0,
        description: typeof o.description === 'string' ? o.description : null,
      })),
  };
}

export type PricingView = ReturnType<typeof pricingView>;
