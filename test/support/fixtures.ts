import { period, restClient } from './app.ts';

type Client = ReturnType<typeof restClient>;

/** A vehicle made through the API, with unlimited miles offered unless told otherwise. */
export async function createVehicle(api: Client, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/v1/vehicles', {
    name: 'Toyota Corolla',
    daily_rate_cents: 4900,
    deposit_cents: 25000,
    included_miles: 200,
    extra_mile_fee_cents: 35,
    unlimited_miles_daily_cents: 1500,
    ...overrides,
  });
  if (res.status !== 201) throw new Error(`vehicle not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string } & Record<string, any>;
}

let dayOffset = 10;
/** A fresh future period, never overlapping the previous ones of this process. */
export function nextPeriod(days = 2) {
  dayOffset += days + 1;
  return period(dayOffset, days);
}

export async function createBooking(api: Client, vehicleId: string, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/v1/bookings', {
    vehicle_id: vehicleId,
    ...nextPeriod(),
    customer: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+1 512 555 0100' },
    ...overrides,
  });
  if (res.status !== 201) throw new Error(`booking not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string } & Record<string, any>;
}
