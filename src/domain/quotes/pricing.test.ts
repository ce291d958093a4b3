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

describe('pricing rules day by day (seasonal > weekend > base)', () => {
  // 2027-07-01 is a Thursday.
  const ruled = {
    ...vehicle,
    weekendRateCents: 6900,
    weekendDays: ['saturday', 'sunday'],
    seasonalRates: [{ name: 'Fourth of July', start_date: '2027-07-03', end_date: '2027-07-05', daily_rate_cents: 9900 }],
  };

  it('prices each day by the rule that applies and sums them; daily_rate_cents stays the base rate', () => {
    const price = priceRental(ruled, { startAt: at('2027-07-01T10:00:00Z'), endAt: at('2027-07-08T10:00:00Z') }, false);
    expect(price.dayRates).toEqual([
      { date: '2027-07-01', rule: 'base', rate_cents: 4900 },
      { date: '2027-07-02', rule: 'base', rate_cents: 4900 },
      { date: '2027-07-03', rule: 'seasonal', rate_cents: 9900, season: 'Fourth of July' },
      { date: '2027-07-04', rule: 'seasonal', rate_cents: 9900, season: 'Fourth of July' },
      { date: '2027-07-05', rule: 'seasonal', rate_cents: 9900, season: 'Fourth of July' },
      { date: '2027-07-06', rule: 'base', rate_cents: 4900 },
      { date: '2027-07-07', rule: 'base', rate_cents: 4900 },
    ]);
    expect(price).toMatchObject({ days: 7, dailyRateCents: 4900, rentalCents: 4 * 4900 + 3 * 9900, totalCents: 4 * 4900 + 3 * 9900 });
  });

  it('prices weekend days at the weekend rate outside seasons, and only when a weekend rate is set', () => {
    const sat = { startAt: at('2027-07-10T09:00:00Z'), endAt: at('2027-07-13T09:00:00Z') };
    expect(priceRental(ruled, sat, false).dayRates.map((d) => [d.rule, d.rate_cents])).toEqual([['weekend', 6900], ['weekend', 6900], ['base', 4900]]);
    expect(priceRental({ ...ruled, weekendRateCents: null }, sat, false).rentalCents).toBe(3 * 4900);
    expect(priceRental({ ...ruled, weekendDays: ['friday', 'saturday'] }, sat, false).dayRates.map((d) => d.rule)).toEqual(['weekend', 'base', 'base']);
  });

  it('dates a day in the given time zone', () => {
    // 2027-07-10T02:00Z is still Friday evening in Chicago.
    const period = { startAt: at('2027-07-10T02:00:00Z'), endAt: at('2027-07-11T02:00:00Z') };
    expect(priceRental(ruled, period, false).dayRates[0]).toMatchObject({ date: '2027-07-10', rule: 'weekend' });
    expect(priceRental(ruled, period, false, { timeZone: 'America/Chicago' }).dayRates[0]).toMatchObject({ date: '2027-07-09', rule: 'base' });
    expect(priceRental(ruled, period, false, { timeZone: 'Not/AZone' }).dayRates[0].date).toBe('2027-07-10');
  });

  it('keeps the unlimited-miles fee per day and adds a delivery fee to the total, not to the rental', () => {
    const price = priceRental(ruled, { startAt: at('2027-07-02T10:00:00Z'), endAt: at('2027-07-04T10:00:00Z') }, true, { deliveryFeeCents: 3500 });
    expect(price).toMatchObject({ rentalCents: 4900 + 9900, unlimitedMilesFeeCents: 3000, deliveryFeeCents: 3500, totalCents: 4900 + 9900 + 3000 + 3500 });
  });

  it('ignores malformed stored seasons and prices a vehicle without rules as before', () => {
    const price = priceRental({ ...vehicle, seasonalRates: [{ start_date: 1 }, 'x'] }, { startAt: at('2027-07-03T10:00:00Z'), endAt: at('2027-07-05T10:00:00Z') }, false);
    expect(price.dayRates.every((d) => d.rule === 'base')).toBe(true);
    expect(price.rentalCents).toBe(2 * 4900);
  });
});
