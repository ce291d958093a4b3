import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, uploadedImage } from './support/fixtures.ts';

/*
 * One booking from creation to a completed return through the public API. The sandbox stands
 * in only for outside parties: the customer paying the processor, the identity provider's
 * verdict and the customer's signature. Everything the business does is its own API call.
 */
describe.each(ENGINES)('a whole trip on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    // This business requires insurance.
    expect((await api.post('/v1/business/settings', { insurance_requirements: { required: true } })).status).toBe(200);
  });
  afterAll(async () => t?.close());

  it('books, pays, verifies, signs, insures, secures the deposit, hands over with access, and takes the vehicle back', async () => {
    const ok = async (res: Promise<{ status: number; body: any }>, status = 200) => {
      const answer = await res;
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      return answer.body;
    };
    const vehicle = await createVehicle(api);
    const start = new Date(Date.now() + 25 * 60_000);
    start.setUTCSeconds(0, 0);
    const booking = await createBooking(api, vehicle.id, { start_at: start.toISOString(), end_at: new Date(start.getTime() + 2 * 86_400_000).toISOString() });
    const id = booking.id;

    const checkout = await ok(api.post(`/v1/bookings/${id}/checkout`), 201);
    expect(checkout.client_secret).toEqual(expect.any(String));
    await ok(api.post(`/v1/test/bookings/${id}/payment/succeed`)); // the customer paid the processor
    await ok(api.post(`/v1/test/bookings/${id}/identity/verify`)); // the identity provider's verdict
    await ok(api.post(`/v1/test/bookings/${id}/agreement/sign`)); // the customer's signature
    const policy = await uploadedImage(api, 'insurance_document');
    await ok(api.post(`/v1/bookings/${id}/insurance`, { provider: 'Acme Mutual', policy_ref: 'AM-77', document_file_ids: [policy] }));
    await ok(api.post(`/v1/bookings/${id}/insurance/approve`));
    await ok(api.post(`/v1/bookings/${id}/deposit`));
    expect((await ok(api.get(`/v1/bookings/${id}/pickup-readiness`))).ready).toBe(true);

    await ok(api.post(`/v1/bookings/${id}/vehicle-access`, { method: 'lockbox', instructions: 'Garage, bay 2' }));
    const access = await ok(api.post(`/v1/bookings/${id}/vehicle-access/release`));
    expect(access.access_code).toMatch(/^\d{6}$/);
    await ok(api.post(`/v1/bookings/${id}/pickup/photos`, { photos: [{ slot: 'front', file_id: await uploadedImage(api) }, { slot: 'odometer', file_id: await uploadedImage(api) }] }));
    await ok(api.post(`/v1/bookings/${id}/pickup/mileage`, { mileage_out: 20_000 }));
    expect((await ok(api.post(`/v1/bookings/${id}/pickup/complete`))).state).toBe('active');

    await ok(api.post(`/v1/bookings/${id}/return/start`));
    await ok(api.post(`/v1/bookings/${id}/return/photos`, { photos: [{ slot: 'rear', file_id: await uploadedImage(api, 'return_photo') }] }));
    await ok(api.post(`/v1/bookings/${id}/return/mileage`, { mileage_in: 20_450 }));
    const submitted = await ok(api.post(`/v1/bookings/${id}/return/submit`));
    // Two days at 200 included miles each: 50 over, at 35 cents.
    expect(submitted.mileage).toMatchObject({ miles_used: 450, included_miles: 400, over_miles: 50, mileage_fee_cents: 1750 });
    await ok(api.post(`/v1/bookings/${id}/vehicle-access/revoke`));
    expect((await ok(api.get(`/v1/bookings/${id}/vehicle-access`))).access_code).toBeNull();

    const [charge] = (await ok(api.get(`/v1/bookings/${id}/charges`))).data;
    expect(charge).toMatchObject({ type: 'mileage', amount_cents: 1750, state: 'pending' });
    expect((await ok(api.post(`/v1/charges/${charge.id}/collect`))).state).toBe('succeeded');
    await ok(api.post(`/v1/bookings/${id}/deposit/release`));
    expect((await ok(api.post(`/v1/bookings/${id}/return/complete`))).state).toBe('completed');

    const eventList = await ok(api.get(`/v1/events?booking_id=${id}&limit=100`));
    const events = eventList.data.map((e: any) => e.type).reverse();
    expect(events.filter((type: string) => ['booking.created', 'payment.succeeded', 'insurance.approved', 'deposit.secured', 'pickup.ready', 'rental.started', 'return.submitted', 'charge.succeeded', 'deposit.released', 'rental.completed'].includes(type))).toEqual([
      'booking.created', 'payment.succeeded', 'insurance.approved', 'deposit.secured', 'pickup.ready', 'rental.started', 'return.submitted', 'charge.succeeded', 'deposit.released', 'rental.completed',
    ]);
    const transactions = (await ok(api.get(`/v1/bookings/${id}/transactions`))).data.map((x: any) => [x.type, x.status, x.amount_cents]);
    expect(transactions).toEqual(expect.arrayContaining([['payment', 'succeeded', booking.total_cents], ['deposit_hold', 'succeeded', 25_000], ['charge', 'succeeded', 1750], ['deposit_release', 'succeeded', 25_000]]));
    // No event carried the access code: they hold whole objects, so look at all of them.
    expect(eventList.data.length).toBeGreaterThan(10);
    expect(JSON.stringify(eventList)).not.toContain(access.access_code);
  });
});
