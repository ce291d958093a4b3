import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, period, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, nextPeriod } from './support/fixtures.ts';

/** The twelve first-release operations (the spec, item 5) over REST, on both engines. */
describe.each(ENGINES)('first release over REST on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let publicApi: ReturnType<typeof restClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    publicApi = restClient(t.baseUrl, t.business.test_public_key);
  });
  afterAll(() => t?.close());

  describe('GET /v1/vehicles and GET /v1/vehicles/{id}', () => {
    it('lists vehicles newest first as a list object, and pages with limit and starting_after', async () => {
      const a = await createVehicle(api, { name: 'A' });
      const b = await createVehicle(api, { name: 'B' });
      const c = await createVehicle(api, { name: 'C' });

      const first = await publicApi.get('/v1/vehicles?limit=2');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ object: 'list', has_more: true, url: '/v1/vehicles' });
      expect(first.body.data.map((v: any) => v.id)).toEqual([c.id, b.id]);

      const second = await publicApi.get(`/v1/vehicles?limit=2&starting_after=${b.id}`);
      expect(second.body.data[0].id).toBe(a.id);
    });

    it('retrieves one vehicle with its pricing in _cents fields', async () => {
      const v = await createVehicle(api, { metadata: { fleet_no: 'T-7' } });
      const res = await publicApi.get(`/v1/vehicles/${v.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        object: 'vehicle', id: v.id, livemode: false, daily_rate_cents: 4900, deposit_cents: 25000, included_miles: 200,
        extra_mile_fee_cents: 35, unlimited_miles_daily_cents: 1500, currency: 'usd', metadata: { fleet_no: 'T-7' },
      });
      expect(res.body.created_at).toMatch(/Z$/);
    });
  });

  describe('POST /v1/quotes', () => {
    it('prices days rounded up, with unlimited miles, deposit held apart', async () => {
      const v = await createVehicle(api);
      const start = new Date(Date.now() + 20 * 86_400_000);
      start.setUTCMinutes(0, 0, 0);
      const end = new Date(start.getTime() + 2 * 86_400_000 + 3_600_000); // 2 days 1 hour → 3 days
      const res = await publicApi.post('/v1/quotes', { vehicle_id: v.id, start_at: start.toISOString(), end_at: end.toISOString(), unlimited_miles: true });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'quote', days: 3, daily_rate_cents: 4900, rental_cents: 14700, unlimited_miles_fee_cents: 4500,
        deposit_cents: 25000, included_miles: null, extra_mile_fee_cents: 35, total_cents: 19200, currency: 'usd', available: true,
      });
      expect(new Date(res.body.expires_at).getTime()).toBeGreaterThan(Date.now());
    });

    it('gives included miles for the whole period without unlimited miles', async () => {
      const v = await createVehicle(api);
      const res = await api.post('/v1/quotes', { vehicle_id: v.id, ...period(30, 4) });
      expect(res.body).toMatchObject({ days: 4, included_miles: 800, unlimited_miles_fee_cents: 0, total_cents: 19600 });
    });

    it('answers 422 on unlimited miles for a vehicle without that price', async () => {
      const v = await createVehicle(api, { unlimited_miles_daily_cents: null });
      const res = await api.post('/v1/quotes', { vehicle_id: v.id, ...period(30, 2), unlimited_miles: true });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'validation_error', param: 'unlimited_miles' });
    });
  });

  describe('GET /v1/availability', () => {
    it('excludes a vehicle with an overlapping booking until that booking is canceled', async () => {
      const v = await createVehicle(api);
      const when = nextPeriod(3);
      const booking = await createBooking(api, v.id, when);
      const overlapping = { start_at: new Date(new Date(when.start_at).getTime() + 86_400_000).toISOString(), end_at: when.end_at };
      const query = `/v1/availability?start_at=${encodeURIComponent(overlapping.start_at)}&end_at=${encodeURIComponent(overlapping.end_at)}&limit=100`;

      const busy = await publicApi.get(query);
      expect(busy.status).toBe(200);
      expect(busy.body.data.map((x: any) => x.id)).not.toContain(v.id);

      await api.post(`/v1/bookings/${booking.id}/cancel`);
      const free = await publicApi.get(query);
      expect(free.body.data.map((x: any) => x.id)).toContain(v.id);
    });

    it('needs both ends of the period', async () => {
      const res = await publicApi.get(`/v1/availability?start_at=${encodeURIComponent(period(5, 1).start_at)}`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'parameter_missing', param: 'end_at' });
    });
  });

  describe('POST /v1/bookings, GET /v1/bookings/{id}, POST /v1/bookings/{id}/cancel', () => {
    it('creates a pending_payment booking with its price snapshot, gates, customer, payment and deposit', async () => {
      const v = await createVehicle(api);
      const when = nextPeriod(2);
      const res = await api.post('/v1/bookings', { vehicle_id: v.id, ...when, customer: { name: 'Grace Hopper', email: 'grace@example.com' }, metadata: { crm_id: '42' } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'booking', state: 'pending_payment', vehicle_id: v.id, days: 2, rental_cents: 9800, total_cents: 9800,
        deposit_cents: 25000, included_miles: 400, metadata: { crm_id: '42' },
        gates: { payment: 'pending', identity: 'pending', agreement: 'pending', deposit: 'pending', insurance: 'not_required' },
      });
      expect(res.body.next_states).toContain('canceled');
      expect(new Date(res.body.hold_expires_at).getTime()).toBeGreaterThan(Date.now() + 25 * 60_000);

      // The create answer alone carries the client secret (the embedded components' browser booking).
      expect(res.body.client_secret).toMatch(new RegExp(`^${res.body.id}_secret_`));
      const read = await api.get(`/v1/bookings/${res.body.id}`);
      expect(read.body).toEqual({ ...res.body, client_secret: null });

      const customer = await api.get(`/v1/customers/${res.body.customer_id}`);
      expect(customer.body).toMatchObject({ object: 'customer', name: 'Grace Hopper', email: 'grace@example.com' });

      const payment = await api.get(`/v1/bookings/${res.body.id}/payment`);
      expect(payment.body).toMatchObject({ object: 'payment', booking_id: res.body.id, state: 'requires_payment', amount_cents: 9800, currency: 'usd' });

      const deposit = await api.get(`/v1/bookings/${res.body.id}/deposit`);
      expect(deposit.body).toMatchObject({ object: 'deposit', booking_id: res.body.id, state: 'required', amount_cents: 25000 });

      const charges = await api.get(`/v1/bookings/${res.body.id}/charges`);
      expect(charges.body).toEqual({ object: 'list', data: [], has_more: false, url: `/v1/bookings/${res.body.id}/charges` });
    });

    it('keeps the price of an unexpired quote, and refuses a quote for another period', async () => {
      const v = await createVehicle(api);
      const when = nextPeriod(2);
      const quote = await api.post('/v1/quotes', { vehicle_id: v.id, ...when });
      await t.db.prisma.vehicle.update({ where: { id: v.id }, data: { dailyRateCents: 9999 } });

      const booked = await api.post('/v1/bookings', { vehicle_id: v.id, ...when, quote_id: quote.body.id, customer: { name: 'Q' } });
      expect(booked.status).toBe(201);
      expect(booked.body).toMatchObject({ quote_id: quote.body.id, daily_rate_cents: 4900, total_cents: quote.body.total_cents });

      const mismatch = await api.post('/v1/bookings', { vehicle_id: v.id, ...nextPeriod(2), quote_id: quote.body.id, customer: { name: 'Q' } });
      expect(mismatch.status).toBe(422);
      expect(mismatch.body.error.param).toBe('quote_id');
    });

    it('answers 409 vehicle_unavailable to an overlapping booking, and books back-to-back periods', async () => {
      const v = await createVehicle(api);
      const when = nextPeriod(3);
      await createBooking(api, v.id, when);
      const overlap = await api.post('/v1/bookings', { vehicle_id: v.id, start_at: when.start_at, end_at: when.end_at, customer: { name: 'B' } });
      expect(overlap.status).toBe(409);
      expect(overlap.body.error).toMatchObject({ type: 'conflict', code: 'vehicle_unavailable' });

      const after = { start_at: when.end_at, end_at: new Date(new Date(when.end_at).getTime() + 86_400_000).toISOString() };
      expect((await api.post('/v1/bookings', { vehicle_id: v.id, ...after, customer: { name: 'C' } })).status).toBe(201);
    });

    it('books an existing customer by id', async () => {
      const v = await createVehicle(api);
      const first = await createBooking(api, v.id);
      const second = await createBooking(api, v.id, { customer: undefined, customer_id: first.customer_id });
      expect(second.customer_id).toBe(first.customer_id);
    });

    it('cancels before pickup, then refuses a second cancel with invalid_state_transition', async () => {
      const v = await createVehicle(api);
      const booking = await createBooking(api, v.id);
      const canceled = await api.post(`/v1/bookings/${booking.id}/cancel`, { reason: 'customer changed plans' });
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ id: booking.id, state: 'canceled', cancellation_reason: 'customer changed plans' });
      expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body.state).toBe('canceled');

      const again = await api.post(`/v1/bookings/${booking.id}/cancel`);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ type: 'conflict', code: 'invalid_state_transition' });
      expect(again.body.error.message).toContain("'canceled'");
    });

    it('refunds a paid booking canceled inside the free window and ends it refunded', async () => {
      const v = await createVehicle(api);
      const booking = await createBooking(api, v.id);
      // Payment collection arrives with the sandbox issue; here the paid state is set directly.
      await t.db.prisma.booking.update({ where: { id: booking.id }, data: { state: 'booked', paymentGate: 'satisfied' } });
      await t.db.prisma.payment.update({ where: { bookingId: booking.id }, data: { state: 'succeeded' } });

      const res = await api.post(`/v1/bookings/${booking.id}/cancel`);
      expect(res.body.state).toBe('refunded');
      const payment = await api.get(`/v1/bookings/${booking.id}/payment`);
      expect(payment.body).toMatchObject({ state: 'refunded', amount_refunded_cents: booking.total_cents });
    });

    it('lists bookings newest first', async () => {
      const v = await createVehicle(api);
      const older = await createBooking(api, v.id);
      const newer = await createBooking(api, v.id);
      const res = await api.get('/v1/bookings?limit=2');
      expect(res.body.data.map((b: any) => b.id)).toEqual([newer.id, older.id]);
    });
  });

  describe('POST /v1/messages', () => {
    it('redacts card numbers and security codes before storing, and never returns them', async () => {
      const v = await createVehicle(api);
      const booking = await createBooking(api, v.id);
      const res = await api.post('/v1/messages', { channel: 'sms', booking_id: booking.id, body: 'Pay with 4242 4242 4242 4242, cvc 123, pickup at 10:30' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ object: 'message', channel: 'sms', booking_id: booking.id, redacted: true });
      expect(res.body.body).toBe('Pay with [card number redacted], cvc [redacted], pickup at 10:30');

      const rows = await t.db.prisma.message.findMany();
      const events = await t.db.prisma.event.findMany({ where: { type: 'message.created' } });
      const idempotency = await t.db.prisma.idempotencyRecord.findMany();
      for (const stored of [JSON.stringify(rows), JSON.stringify(events), JSON.stringify(idempotency)]) {
        expect(stored).not.toMatch(/4242/);
        expect(stored).not.toMatch(/cvc 123/);
      }
    });

    it('needs a recipient', async () => {
      const res = await api.post('/v1/messages', { channel: 'email', body: 'hello' });
      expect(res.status).toBe(422);
      expect(res.body.error.param).toBe('customer_id');
    });
  });

  describe('holds', () => {
    it('expires an unpaid booking after its hold so the vehicle is free again', async () => {
      const short = await startTestApp(engine, { holdMinutes: 0 });
      try {
        const client = restClient(short.baseUrl, short.business.test_secret_key);
        const v = await createVehicle(client);
        const when = nextPeriod(2);
        const first = await createBooking(client, v.id, when);
        const second = await client.post('/v1/bookings', { vehicle_id: v.id, ...when, customer: { name: 'Next' } });
        expect(second.status).toBe(201);
        const expired = await client.get(`/v1/bookings/${first.id}`);
        expect(expired.body).toMatchObject({ state: 'canceled', cancellation_reason: 'hold_expired' });

        // A lapsed hold nobody swept yet reads as expired too.
        const lone = await createBooking(client, v.id);
        const read = await client.get(`/v1/bookings/${lone.id}`);
        expect(read.body).toMatchObject({ state: 'canceled', cancellation_reason: 'hold_expired' });
        expect((await client.get(`/v1/bookings/${lone.id}/payment`)).body.state).toBe('canceled');
      } finally {
        await short.close();
      }
    });
  });
});
