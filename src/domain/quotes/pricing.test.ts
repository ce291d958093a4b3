import { describe, expect, it } from 'vitest';
import { priceRental, rentalDays, UnlimitedMilesNotOffered } from './pricing.ts';

const vehicle = { currency: 'usd', dailyRateCents: 4900, depositCents: 25000, includedMiles: 200, extraMileFeeCents: 35, unlimitedMilesDailyCents: 1500 };
const at = (iso: string) => new Date(iso);

describe('priceRental', () => {
  it('rounds partial days up, at least one day', () => {
    expect(rentalDays(at('2026-12-01T10:00:00Z'), at('2026-12-01T11:00:00Z'))).toBe(1);
    expect(rentalDays(at('2026-12-01T10:00:00Z'), at('2026-12-03T10:00:00Z'))).toBe(2);
    expect(rentalDays(at('2026-12-01T10:00:00Z'), at('2026-12-03T10:00:01Z'))).toBe(3);
  });

  it('prices rental × days, includes miles per day, keeps the deposit out of the total', () => {
    const price = priceRental(vehicle, { startAt: at('2026-12-01T10:00:00Z'), endAt: at('2026-12-04T10:00:00Z') }, false);
    expect(price).toMatchObject({ days: 3, rentalCents: 14700, unlimitedMilesFeeCents: 0, depositCents: 25000, includedMiles: 600, totalCents: 14700 });
  });

  it('adds the unlimited-miles fee per day and drops included miles', () => {
    const price = priceRental(vehicle, { startAt: at('2026-12-01T10:00:00Z'), endAt: at('2026-12-04T10:00:00Z') }, true);
    expect(price).toMatchObject({ unlimitedMilesFeeCents: 4500, includedMiles: null, totalCents: 19200 });
  });

  it('refuses unlimited miles on a vehicle without that price', () => {
    expect(() => priceRental({ ...vehicle, unlimitedMilesDailyCents: null }, { startAt: at('2026-12-01T10:00:00Z'), endAt: at('2026-12-02T10:00:00Z') }, true)).toThrow(UnlimitedMilesNotOffered);
  });
});
