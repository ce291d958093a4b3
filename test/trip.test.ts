import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, uploadedImage } from './support/fixtures.ts';

/*
 * A trip through the public API, from a paid booking to a completed return: the deposit held,
 * the pickup recorded and completed, the return opened, photographed, read and submitted, the
 * mileage object and its charge as the spec's formulas say, the return completed. The sandbox
 * stands in only for outside parties (the processor's payment, the identity provider, the
 * customer's signature).
 */

describe.each(ENGINES)('the trip on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  const photo = () => uploadedImage(api, 'return_photo');

  /** A two-day rental (400 miles included, 35 cents a mile beyond) picked up through the API at 1,000 miles. */
  async function rentalUnderWay(options: { unlimited?: boolean } = {}) {
    const vehicle = await createVehicle(api);
    const start = new Date(Date.now() + 20 * 60_000);
    start.setUTCSeconds(0, 0);
    const booking = await createBooking(api, vehicle.id, { start_at: start.toISOString(), end_at: new Date(start.getTime() + 2 * 86_400_000).toISOString(), unlimited_miles: Boolean(options.unlimited) });
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    expect((await api.post(`/v1/bookings/${booking.id}/deposit`)).status).toBe(200);
    expect((await api.post(`/v1/bookings/${booking.id}/pickup/photos`, { photos: [{ slot: 'front', file_id: await photo() }] })).status).toBe(200);
    const started = await api.post(`/v1/bookings/${booking.id}/pickup/complete`, { mileage_out: 1000 });
    expect(started.body).toMatchObject({ state: 'active', mileage_out: 1000 });
    return booking;
  }

  it('returns a vehicle: open, photograph, read the odometer, submit (the mileage fee becomes a charge), complete', async () => {
    const booking = await rentalUnderWay();
    expect((await api.get(`/v1/bookings/${booking.id}/return`)).body).toEqual({
      object: 'return', booking_id: booking.id, state: 'not_started', mileage_out: 1000, mileage_in: null, mileage: null,
      started_at: null, submitted_at: null, completed_at: null, photos: [],
    });
    const opened = await api.post(`/v1/bookings/${booking.id}/return/start`);
    expect(opened.body).toMatchObject({ state: 'in_progress', started_at: expect.any(String) });
    expect((await api.post(`/v1/bookings/${booking.id}/return/start`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'in_progress' });

    const rear = await photo();
    const photographed = await api.post(`/v1/bookings/${booking.id}/return/photos`, { photos: [{ slot: 'rear', file_id: rear }, { slot: 'damage_detail', file_id: rear }] });
    expect(photographed.body.photos.map((p: any) => p.slot)).toEqual(['rear', 'damage_detail']);

    const backwards = await api.post(`/v1/bookings/${booking.id}/return/mileage`, { mileage_in: 999 });
    expect(backwards.status).toBe(422);
    expect(backwards.body.error).toMatchObject({ code: 'parameter_invalid', param: 'mileage_in' });
    const read = await api.post(`/v1/bookings/${booking.id}/return/mileage`, { mileage_in: 1900 });
    expect(read.body.mileage).toEqual({
      mileage_out: 1000, mileage_in: 1900, miles_used: 900, included_miles: 400, over_miles: 500, extra_mile_fee_cents: 35, mileage_fee_cents: 17_500, unlimited_miles: false,
    });

    const submitted = await api.post(`/v1/bookings/${booking.id}/return/submit`);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ state: 'submitted', submitted_at: expect.any(String), mileage_in: 1900 });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('return_in_review');
    const charges = (await api.get(`/v1/bookings/${booking.id}/charges`)).body.data;
    expect(charges.map((c: any) => [c.type, c.amount_cents, c.state])).toEqual([['mileage', 17_500, 'pending']]);
    expect((await api.post(`/v1/bookings/${booking.id}/return/photos`, { photos: [{ slot: 'rear', file_id: rear }] })).status).toBe(409);

    expect((await api.post(`/v1/bookings/${booking.id}/return/complete`)).body.state).toBe('completed');
    expect((await api.get(`/v1/bookings/${booking.id}/return`)).body).toMatchObject({ state: 'completed', completed_at: expect.any(String) });
    const types = (await api.get(`/v1/events?booking_id=${booking.id}&limit=100`)).body.data.map((e: any) => e.type).reverse();
    expect(types.filter((x: string) => ['rental.started', 'return.submitted', 'charge.created', 'rental.completed'].includes(x))).toEqual(['rental.started', 'return.submitted', 'charge.created', 'rental.completed']);
  });

  it('submits with the reading in the same call; unlimited miles and a return within the included miles cost nothing; no reading is 422', async () => {
    const unlimited = await rentalUnderWay({ unlimited: true });
    const free = await api.post(`/v1/bookings/${unlimited.id}/return/submit`, { mileage_in: 9000 });
    expect(free.body.mileage).toMatchObject({ miles_used: 8000, included_miles: null, over_miles: 0, mileage_fee_cents: 0, unlimited_miles: true });
    expect((await api.get(`/v1/bookings/${unlimited.id}/charges`)).body.data).toEqual([]);

    const within = await rentalUnderWay();
    const missing = await api.post(`/v1/bookings/${within.id}/return/submit`);
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'mileage_in' });
    const exact = await api.post(`/v1/bookings/${within.id}/return/submit`, { mileage_in: 1400 });
    expect(exact.body.mileage).toMatchObject({ miles_used: 400, over_miles: 0, mileage_fee_cents: 0 });
    expect((await api.get(`/v1/bookings/${within.id}/charges`)).body.data).toEqual([]);

    const notOut = await createBooking(api, (await createVehicle(api)).id);
    expect((await api.post(`/v1/bookings/${notOut.id}/return/start`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'pending_payment' });
  });

  it('runs the return over GraphQL', async () => {
    const booking = await rentalUnderWay();
    const opened = await gql(`mutation($id: ID!) { startReturn(bookingId: $id) { state } }`, { id: booking.id });
    expect(opened.data.startReturn).toEqual({ state: 'in_progress' });
    const submitted = await gql(`mutation($id: ID!) { submitReturn(bookingId: $id, input: { mileageIn: 1450 }) { state mileage { overMiles mileageFeeCents } booking { state } } }`, { id: booking.id });
    expect(submitted.errors).toBeUndefined();
    expect(submitted.data.submitReturn).toEqual({ state: 'submitted', mileage: { overMiles: 50, mileageFeeCents: 1750 }, booking: { state: 'return_in_review' } });
    const read = await gql(`query($id: ID!) { bookingReturn(bookingId: $id) { state mileageIn photos { slot } } }`, { id: booking.id });
    expect(read.data.bookingReturn).toEqual({ state: 'submitted', mileageIn: 1450, photos: [] });
  });
});

describe.each(ENGINES)('late rentals on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  // The service's clock, moved forward by the test; the sweep runs every 50 ms.
  let ahead = 0;

  beforeAll(async () => {
    t = await startTestApp(engine, { holdSweepMs: 50 }, { now: () => new Date(Date.now() + ahead) });
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  const waitFor = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  };

  it('moves a rental still out after end_at plus the grace minutes to late, once, by itself; its return costs the business\'s late fee per started hour', async () => {
    const vehicle = await createVehicle(api);
    const start = new Date(Date.now() + 20 * 60_000);
    start.setUTCSeconds(0, 0);
    const end = new Date(start.getTime() + 86_400_000);
    const booking = await createBooking(api, vehicle.id, { start_at: start.toISOString(), end_at: end.toISOString() });
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    expect((await api.post(`/v1/bookings/${booking.id}/pickup/complete`, { mileage_out: 1 })).body.state).toBe('active');

    // Past end_at, within the default 59 minutes of grace: still active.
    ahead = end.getTime() + 30 * 60_000 - Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('active');

    ahead = end.getTime() + 61 * 60_000 - Date.now();
    await waitFor(async () => (await api.get(`/v1/bookings/${booking.id}`)).body.state === 'late');
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('late');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const late = (await api.get(`/v1/events?booking_id=${booking.id}&type=rental.late`)).body.data;
    expect(late).toHaveLength(1);
    expect(late[0].request_id ?? null).toBeNull();

    // It comes back 61 minutes after end_at; this business charges 15.00 per started hour late.
    expect((await api.post('/v1/business/settings', { return_rules: { late_fee_cents_per_hour: 1500 } })).status).toBe(200);
    expect((await api.post(`/v1/bookings/${booking.id}/return/submit`, { mileage_in: 2 })).body.state).toBe('submitted');
    const charges = (await api.get(`/v1/bookings/${booking.id}/charges`)).body.data;
    expect(charges.map((c: any) => [c.type, c.amount_cents])).toEqual([['late_return', 3000]]);
    expect(charges[0].description).toMatch(/2 started hour/);
    ahead = 0;
  });
});

describe.each(ENGINES)('manual approval on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    // The setting is read on every step.
    expect((await api.post('/v1/business/settings', { booking_approval_mode: 'manual' })).status).toBe(200);
  });
  afterAll(async () => t?.close());

  it('holds a paid booking for approval, approves it (booking.confirmed, then ready once its gates are met), and refuses a second approval', async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('booked');
    expect((await api.get(`/v1/bookings/${booking.id}/pickup-readiness`)).body.gates.find((g: any) => g.name === 'confirmation').missing).toMatch(/not confirmed/);

    const approved = await api.post(`/v1/bookings/${booking.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.state).toBe('ready_for_pickup');
    const types = (await api.get(`/v1/events?booking_id=${booking.id}&limit=100`)).body.data.map((e: any) => e.type);
    expect(types.slice(0, 2)).toEqual(['pickup.ready', 'booking.confirmed']);
    const again = await api.post(`/v1/bookings/${booking.id}/approve`);
    expect(again.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'ready_for_pickup' });

    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const unpaid = await createBooking(api, (await createVehicle(api)).id);
    const early = await gql(`mutation($id: ID!) { approveBooking(id: $id) { state } }`, { id: unpaid.id });
    expect(early.errors?.[0].extensions).toMatchObject({ code: 'invalid_state_transition', current_state: 'pending_payment' });
    await api.post(`/v1/test/bookings/${unpaid.id}/payment/succeed`);
    expect((await gql(`mutation($id: ID!) { approveBooking(id: $id) { state } }`, { id: unpaid.id })).data.approveBooking).toEqual({ state: 'confirmed' });
  });
});
