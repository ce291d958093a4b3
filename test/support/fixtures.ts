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

/** A real 1×1 PNG: what an upload of an image looks like to the type check. */
export const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A PNG uploaded through the API (a signed link, then the bytes); its file id. */
export async function uploadedImage(api: Client, purpose = 'pickup_photo'): Promise<string> {
  const link = (await api.post('/v1/files/upload-url', { purpose, filename: 'photo.png', content_type: 'image/png', size_bytes: TINY_PNG.length })).body;
  const res = await fetch(link.upload_url, { method: 'PUT', body: new Uint8Array(TINY_PNG) });
  if (res.status !== 200) throw new Error(`upload failed: ${res.status}`);
  return link.id as string;
}

/** A paid booking of a vehicle of its own, starting `minutes` from now (inside the default one-hour pickup window) and lasting `days`. */
export async function paidBookingStartingSoon(api: Client, options: { minutes?: number; days?: number } = {}) {
  const vehicle = await createVehicle(api);
  const start = new Date(Date.now() + (options.minutes ?? 30) * 60_000);
  start.setUTCSeconds(0, 0);
  const booking = await createBooking(api, vehicle.id, { start_at: start.toISOString(), end_at: new Date(start.getTime() + (options.days ?? 1) * 86_400_000).toISOString() });
  const paid = await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`);
  if (paid.status !== 200) throw new Error(`payment not simulated: ${paid.status}`);
  return booking;
}
