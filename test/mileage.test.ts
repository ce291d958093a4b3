import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/*
 * The mileage object through the public API, case by case against the spec's formulas:
 * miles_used = mileage_in − mileage_out; over_miles = miles_used − included_miles when positive;
 * mileage_fee_cents = over_miles × extra_mile_fee_cents; a positive fee is a `mileage` charge.
 * Each case is a rental picked up and returned through the API (the sandbox pays and verifies).
 */
interface Case {
  name: string;
  days: number;
  includedPerDay: number;
  feeCents: number;
  unlimited: boolean;
  out: number;
  in: number;
}

const CASES: Case[] = [
  { name: 'well over the included miles', days: 2, includedPerDay: 200, feeCents: 35, unlimited: false, out: 1000, in: 1900 },
  { name: 'one mile over', days: 1, includedPerDay: 150, feeCents: 40, unlimited: false, out: 0, in: 151 },
  { name: 'exactly at the limit', days: 3, includedPerDay: 100, feeCents: 25, unlimited: false, out: 5000, in: 5300 },
  { name: 'one mile under the limit', days: 3, includedPerDay: 100, feeCents: 25, unlimited: false, out: 5000, in: 5299 },
  { name: 'not driven at all', days: 1, includedPerDay: 200, feeCents: 35, unlimited: false, out: 72_000, in: 72_000 },
  { name: 'unlimited miles, far beyond', days: 2, includedPerDay: 200, feeCents: 35, unlimited: true, out: 100, in: 9100 },
  { name: 'unlimited miles, not driven', days: 1, includedPerDay: 200, feeCents: 35, unlimited: true, out: 10, in: 10 },
  { name: 'no miles included', days: 1, includedPerDay: 0, feeCents: 50, unlimited: false, out: 200, in: 321 },
  { name: 'a free extra mile', days: 2, includedPerDay: 50, feeCents: 0, unlimited: false, out: 0, in: 500 },
  { name: 'a long rental', days: 14, includedPerDay: 250, feeCents: 30, unlimited: false, out: 12_345, in: 16_000 },
  { name: 'a high odometer', days: 1, includedPerDay: 300, feeCents: 99, unlimited: false, out: 9_999_000, in: 9_999_999 },
  { name: 'a big fee', days: 1, includedPerDay: 100, feeCents: 1_000, unlimited: false, out: 0, in: 101 },
];

/** The spec's formulas, written out for the expectation. */
function expected(c: Case) {
  const included = c.unlimited ? null : c.includedPerDay * c.days;
  const milesUsed = c.in - c.out;
  const overMiles = included === null ? 0 : Math.max(0, milesUsed - included);
  return { mileage_out: c.out, mileage_in: c.in, miles_used: milesUsed, included_miles: included, over_miles: overMiles, extra_mile_fee_cents: c.feeCents, mileage_fee_cents: overMiles * c.feeCents, unlimited_miles: c.unlimited };
}

describe.each(ENGINES)('the mileage object on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  it.each(CASES)('$name', async (c) => {
    const vehicle = await createVehicle(api, { included_miles: c.includedPerDay, extra_mile_fee_cents: c.feeCents, unlimited_miles_daily_cents: 1500 });
    const start = new Date(Date.now() + 10 * 60_000);
    start.setUTCSeconds(0, 0);
    const booking = await createBooking(api, vehicle.id, { start_at: start.toISOString(), end_at: new Date(start.getTime() + c.days * 86_400_000).toISOString(), unlimited_miles: c.unlimited });
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    expect((await api.post(`/v1/bookings/${booking.id}/pickup/complete`, { mileage_out: c.out })).status).toBe(200);
    const submitted = await api.post(`/v1/bookings/${booking.id}/return/submit`, { mileage_in: c.in });
    expect(submitted.status).toBe(200);
    const want = expected(c);
    expect(submitted.body.mileage).toEqual(want);
    const charges = (await api.get(`/v1/bookings/${booking.id}/charges`)).body.data.map((x: any) => [x.type, x.amount_cents]);
    expect(charges).toEqual(want.mileage_fee_cents > 0 ? [['mileage', want.mileage_fee_cents]] : []);
  });
});
