/**
 * Rental pricing (the contract, "Quote"). Pure: the same inputs give the same cents, and
 * a booking snapshots its result.
 *
 * Each rental day is priced by the first rule that applies to its date: a seasonal rate
 * whose date range holds it, then the weekend rate on a weekend day, then the daily rate.
 * Rental day n starts at start_at + n × 24 h; its date is that moment's calendar date in
 * the business's time zone (UTC when none is given).
 */
export interface PricedVehicle {
  currency: string;
  dailyRateCents: number;
  depositCents: number;
  includedMiles: number;
  extraMileFeeCents: number;
  unlimitedMilesDailyCents: number | null;
  /** Daily rate of weekend days; null or absent: weekend days cost the daily rate. */
  weekendRateCents?: number | null;
  /** Lower-case weekday names (`saturday`); absent: Saturday and Sunday. */
  weekendDays?: readonly string[] | null;
  /** Date ranges with their own daily rate (stored JSON: checked again here). */
  seasonalRates?: unknown;
}

/** The columns of a vehicle that pricing reads: a `select` of them reads nothing else. */
export const PRICED_FIELDS = {
  currency: true, dailyRateCents: true, depositCents: true, includedMiles: true, extraMileFeeCents: true,
  unlimitedMilesDailyCents: true, weekendRateCents: true, weekendDays: true, seasonalRates: true,
} as const satisfies Record<keyof PricedVehicle, true>;

export type DayRule = 'seasonal' | 'weekend' | 'base';

/** The price of one rental day and the rule that set it. */
export type DayRate = {
  /** YYYY-MM-DD, in the pricing time zone. */
  date: string;
  rule: DayRule;
  rate_cents: number;
  /** The seasonal rate's name, when one applies and has a name. */
  season?: string;
};

export interface SeasonalRate {
  name?: string | null;
  start_date: string;
  end_date: string;
  daily_rate_cents: number;
}

export interface Price {
  days: number;
  currency: string;
  /** The vehicle's base daily rate (days may cost otherwise: see dayRates). */
  dailyRateCents: number;
  /** The sum of dayRates. */
  rentalCents: number;
  unlimitedMilesFeeCents: number;
  deliveryFeeCents: number;
  depositCents: number;
  /** Total for the period; null with unlimited miles. */
  includedMiles: number | null;
  extraMileFeeCents: number;
  totalCents: number;
  dayRates: DayRate[];
}

export interface PricingOptions {
  /** IANA time zone that dates the rental days (the business's); default UTC. */
  timeZone?: string;
  /** The chosen delivery option's fee, added to the total. */
  deliveryFeeCents?: number;
}

const DAY_MS = 86_400_000;
export const DEFAULT_WEEKEND_DAYS = ['saturday', 'sunday'] as const;
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** Whole days, rounded up, at least one. */
export function rentalDays(startAt: Date, endAt: Date): number {
  return Math.max(1, Math.ceil((endAt.getTime() - startAt.getTime()) / DAY_MS));
}

export class UnlimitedMilesNotOffered extends Error {}

const calendars = new Map<string, Intl.DateTimeFormat>();
function calendar(timeZone: string): Intl.DateTimeFormat {
  let format = calendars.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', weekday: 'long' });
    } catch {
      return calendar('UTC'); // an unknown zone never fails a price
    }
    calendars.set(timeZone, format);
  }
  return format;
}

/** `Date.getUTCDay()`'s order. */
const BY_UTC_DAY = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** The calendar date (YYYY-MM-DD) and lower-case weekday of a moment in a time zone. */
export function localDay(at: Date, timeZone = 'UTC'): { date: string; weekday: string } {
  // UTC needs no time-zone database (and most businesses price in it).
  if (timeZone === 'UTC' && at.getUTCFullYear() >= 1000 && at.getUTCFullYear() <= 9999) return { date: at.toISOString().slice(0, 10), weekday: BY_UTC_DAY[at.getUTCDay()] };
  const parts = Object.fromEntries(calendar(timeZone).formatToParts(at).map((p) => [p.type, p.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, weekday: String(parts.weekday).toLowerCase() };
}

/** The seasonal rates of a stored value, ignoring anything malformed. */
export function seasonalRatesOf(stored: unknown): SeasonalRate[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter(
    (r): r is SeasonalRate =>
      typeof r === 'object' && r !== null && typeof r.start_date === 'string' && typeof r.end_date === 'string' && Number.isInteger(r.daily_rate_cents),
  );
}

/** The rate of one date: seasonal > weekend > base. */
export function rateOfDay(vehicle: PricedVehicle, day: { date: string; weekday: string }, seasons = seasonalRatesOf(vehicle.seasonalRates)): DayRate {
  // ISO dates compare as strings.
  const season = seasons.find((s) => s.start_date <= day.date && day.date <= s.end_date);
  if (season) return { date: day.date, rule: 'seasonal', rate_cents: season.daily_rate_cents, ...(season.name ? { season: season.name } : {}) };
  const weekendDays = vehicle.weekendDays ?? DEFAULT_WEEKEND_DAYS;
  if (vehicle.weekendRateCents != null && weekendDays.includes(day.weekday)) return { date: day.date, rule: 'weekend', rate_cents: vehicle.weekendRateCents };
  return { date: day.date, rule: 'base', rate_cents: vehicle.dailyRateCents };
}

/** The price of each rental day of the period, in order. */
export function priceDays(vehicle: PricedVehicle, period: { startAt: Date; endAt: Date }, timeZone = 'UTC'): DayRate[] {
  const seasons = seasonalRatesOf(vehicle.seasonalRates);
  const days = rentalDays(period.startAt, period.endAt);
  return Array.from({ length: days }, (_, n) => rateOfDay(vehicle, localDay(new Date(period.startAt.getTime() + n * DAY_MS), timeZone), seasons));
}

export function priceRental(vehicle: PricedVehicle, period: { startAt: Date; endAt: Date }, unlimitedMiles: boolean, options: PricingOptions = {}): Price {
  const days = rentalDays(period.startAt, period.endAt);
  if (unlimitedMiles && vehicle.unlimitedMilesDailyCents === null) throw new UnlimitedMilesNotOffered();
  const dayRates = priceDays(vehicle, period, options.timeZone);
  const rentalCents = dayRates.reduce((sum, d) => sum + d.rate_cents, 0);
  const unlimitedMilesFeeCents = unlimitedMiles ? (vehicle.unlimitedMilesDailyCents ?? 0) * days : 0;
  const deliveryFeeCents = options.deliveryFeeCents ?? 0;
  return {
    days,
    currency: vehicle.currency,
    dailyRateCents: vehicle.dailyRateCents,
    rentalCents,
    unlimitedMilesFeeCents,
    deliveryFeeCents,
    depositCents: vehicle.depositCents,
    includedMiles: unlimitedMiles ? null : vehicle.includedMiles * days,
    extraMileFeeCents: vehicle.extraMileFeeCents,
    totalCents: rentalCents + unlimitedMilesFeeCents + deliveryFeeCents,
    dayRates,
  };
}
