import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createVehicle, nextPeriod, uploadedImage } from './support/fixtures.ts';

/** A period starting in about an hour, lasting `days`. */
function soon(days: number) {
  const start = new Date(Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000);
  return { start_at: start.toISOString(), end_at: new Date(start.getTime() + days * 86_400_000).toISOString() };
}

const LIFECYCLE = ['booking.created', 'deposit.secured', 'pickup.ready', 'rental.started', 'return.submitted', 'rental.completed'];

/** The sandbox simulation endpoints (the spec, "Sandbox simulation endpoints"; the contract, "Sandbox"), on both engines. */
describe.each(ENGINES)('sandbox simulations on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(() => t?.close());

  const eventTypes = async (bookingId: string) =>
    (await t.db.prisma.event.findMany({ where: { bookingId }, orderBy: { id: 'asc' } })).map((e) => e.type);

  async function post(path: string, body?: unknown, status = 200) {
    const res = await api.post(path, body);
    if (res.status !== status) throw new Error(`${path}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A test booking taken through every gate: ready_for_pickup. */
  async function readyBooking(body: Record<string, unknown> = {}) {
    const { id } = await post('/v1/test/bookings', body, 201);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure']) await post(`/v1/test/bookings/${id}/${step}`);
    return id as string;
  }

  /** A 2-day rental returned 500 miles over its 400 included: one pending mileage charge. */
  async function returnedWithCharge() {
    const id = await readyBooking(soon(2));
    await post(`/v1/test/bookings/${id}/pickup`, { mileage_out: 1000 });
    const returned = await post(`/v1/test/bookings/${id}/return`, { mileage_in: 1900 });
    return { bookingId: id, chargeId: returned.charge_ids[0] as string };
  }

  describe('the lifecycle sequence', () => {
    it('runs test booking → payment → identity → agreement → deposit → pickup → late → return → complete, with the events in order', async () => {
      // Given a test booking of 2 days on a made-up vehicle (200 miles a day, 35 cents per extra mile)
      const created = await api.post('/v1/test/bookings', soon(2));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ state: 'pending_payment', event: 'booking.created' });
      const id = created.body.id as string;
      expect(id).toMatch(/^bk_/);

      // When each simulation runs, each answers {id, state, event}
      const paid = await api.post(`/v1/test/bookings/${id}/payment/succeed`);
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({ id, state: 'confirmed', event: 'payment.succeeded', events: ['payment.succeeded', 'booking.confirmed'] });

      expect(await post(`/v1/test/bookings/${id}/identity/verify`)).toMatchObject({ id, state: 'confirmed', event: 'identity.verified' });
      expect(await post(`/v1/test/bookings/${id}/agreement/sign`)).toMatchObject({ id, state: 'confirmed', event: 'agreement.signed' });

      const secured = await api.post(`/v1/test/bookings/${id}/deposit/secure`);
      expect(secured.status).toBe(200);
      expect(secured.body).toMatchObject({ id, state: 'ready_for_pickup', event: 'deposit.secured', events: ['deposit.secured', 'pickup.ready'] });

      expect(await post(`/v1/test/bookings/${id}/pickup`, { mileage_out: 1000 })).toMatchObject({ id, state: 'active', event: 'rental.started' });

      const late = await api.post(`/v1/test/bookings/${id}/make-late`);
      expect(late.status).toBe(200);
      expect(late.body).toMatchObject({ id, state: 'late', event: 'rental.late' });

      const returned = await post(`/v1/test/bookings/${id}/return`, { mileage_in: 1900 });
      expect(returned).toMatchObject({
        id, state: 'return_in_review', event: 'return.submitted', events: ['return.submitted', 'charge.created'],
        mileage: { mileage_out: 1000, mileage_in: 1900, miles_used: 900, included_miles: 400, over_miles: 500, extra_mile_fee_cents: 35, mileage_fee_cents: 17500, unlimited_miles: false },
      });
      expect(returned.charge_ids).toHaveLength(1);

      const completed = await api.post(`/v1/bookings/${id}/return/complete`);
      expect(completed.status).toBe(200);
      expect(completed.body).toMatchObject({ object: 'booking', id, state: 'completed', mileage_out: 1000, mileage_in: 1900 });

      // Then the booking's charges hold the mileage charge, and money moved as recorded
      const charges = await api.get(`/v1/bookings/${id}/charges`);
      expect(charges.body.data).toEqual([expect.objectContaining({ id: returned.charge_ids[0], type: 'mileage', state: 'pending', amount_cents: 17500 })]);
      const transactions = await t.db.prisma.transaction.findMany({ where: { bookingId: id }, orderBy: { id: 'asc' } });
      expect(transactions.map((x) => [x.type, x.status])).toEqual([['payment', 'succeeded'], ['deposit_hold', 'succeeded']]);
      expect((await api.get(`/v1/bookings/${id}/deposit`)).body).toMatchObject({ state: 'secured', amount_cents: 25000 });

      // And the Event table holds the spec's lifecycle sequence in order
      const types = await eventTypes(id);
      expect(types.filter((x) => LIFECYCLE.includes(x))).toEqual(LIFECYCLE);
      expect(types).toEqual([
        'booking.created', 'payment.succeeded', 'booking.confirmed', 'identity.verified', 'agreement.signed', 'deposit.secured', 'pickup.ready',
        'rental.started', 'rental.late', 'return.submitted', 'charge.created', 'rental.completed',
      ]);
    });

    it('makes a test booking on a given vehicle, customer and period, and refuses an overlapping one like POST /v1/bookings', async () => {
      const v = await createVehicle(api);
      const when = nextPeriod(2);
      const res = await api.post('/v1/test/bookings', { vehicle_id: v.id, customer: { name: 'Grace Hopper', email: 'grace@example.com' }, ...when, unlimited_miles: true });
      expect(res.status).toBe(201);
      const booking = (await api.get(`/v1/bookings/${res.body.id}`)).body;
      expect(booking).toMatchObject({ vehicle_id: v.id, start_at: new Date(when.start_at).toISOString(), unlimited_miles: true, included_miles: null, days: 2 });
      expect((await api.get(`/v1/customers/${booking.customer_id}`)).body).toMatchObject({ name: 'Grace Hopper' });

      const again = await api.post('/v1/test/bookings', { vehicle_id: v.id, ...when });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('vehicle_unavailable');
    });

    it('refuses a bad period with 422 before making anything', async () => {
      const vehicles = () => t.db.prisma.vehicle.count({ where: { businessId: t.business.business_id, livemode: false } });
      const before = await vehicles();
      const { start_at, end_at } = soon(2);
      const res = await api.post('/v1/test/bookings', { start_at: end_at, end_at: start_at });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'validation_error', param: 'end_at' });
      expect(await vehicles()).toBe(before);
    });

    it('defaults to a 3-day period starting in about an hour', async () => {
      const { id } = await post('/v1/test/bookings', undefined, 201);
      const booking = (await api.get(`/v1/bookings/${id}`)).body;
      const lead = new Date(booking.start_at).getTime() - Date.now();
      expect(lead).toBeGreaterThan(55 * 60_000);
      expect(lead).toBeLessThan(65 * 60_000);
      expect(booking.days).toBe(3);
    });
  });

  describe('gates', () => {
    it('refuses pickup before the deposit is secured with 400 booking_not_ready, changing nothing', async () => {
      // Given a confirmed booking with every gate but the deposit
      const { id } = await post('/v1/test/bookings', undefined, 201);
      for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign']) await post(`/v1/test/bookings/${id}/${step}`);
      const before = (await api.get(`/v1/bookings/${id}`)).body;
      expect(before.state).toBe('confirmed');

      // When pickup is simulated
      const res = await api.post(`/v1/test/bookings/${id}/pickup`, { mileage_out: 500 });

      // Then it is refused, naming the unmet gate, and nothing changed
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'booking_not_ready' });
      expect(res.body.error.message).toContain('security deposit is pending');
      expect((await api.get(`/v1/bookings/${id}`)).body).toEqual(before);
      expect((await api.get(`/v1/bookings/${id}/deposit`)).body.state).toBe('required');
      expect(await eventTypes(id)).not.toContain('rental.started');
    });

    it('refuses pickup of an unpaid booking with booking_not_ready listing every unmet gate', async () => {
      const { id } = await post('/v1/test/bookings', undefined, 201);
      const res = await api.post(`/v1/test/bookings/${id}/pickup`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('booking_not_ready');
      for (const gate of ['payment', 'security deposit', 'identity verification', 'rental agreement']) expect(res.body.error.message).toContain(gate);
    });

    it('sends a booking whose identity is rejected to problem, with identity.rejected', async () => {
      const { id } = await post('/v1/test/bookings', undefined, 201);
      await post(`/v1/test/bookings/${id}/payment/succeed`);
      const res = await api.post(`/v1/test/bookings/${id}/identity/fail`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, state: 'problem', event: 'identity.rejected', events: ['identity.rejected', 'booking.problem'] });
      expect((await api.get(`/v1/bookings/${id}`)).body.gates.identity).toBe('failed');
      const row = await t.db.prisma.identityVerification.findUnique({ where: { bookingId: id } });
      expect(row).toMatchObject({ state: 'rejected' });
    });

    it('keeps a gate the business waived: a rejected identity flags nothing when identity is not required', async () => {
      const other = await startTestApp(engine);
      try {
        const client = restClient(other.baseUrl, other.business.test_secret_key);
        expect((await client.post('/v1/business/settings', { identity_requirements: { required: false } })).status).toBe(200);
        const { id } = (await client.post('/v1/test/bookings')).body;
        await client.post(`/v1/test/bookings/${id}/payment/succeed`);
        const res = await client.post(`/v1/test/bookings/${id}/identity/fail`);
        expect(res.body).toMatchObject({ id, state: 'confirmed', events: ['identity.rejected'] });
        expect((await client.get(`/v1/bookings/${id}`)).body.gates.identity).toBe('not_required');
      } finally {
        await other.close();
      }
    });

    it('answers 409 invalid_state_transition for a step the state does not allow', async () => {
      const { id } = await post('/v1/test/bookings', undefined, 201);
      const res = await api.post(`/v1/test/bookings/${id}/make-late`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ type: 'conflict', code: 'invalid_state_transition' });
      expect(res.body.error.message).toContain("'pending_payment'");
      const complete = await api.post(`/v1/bookings/${id}/return/complete`);
      expect(complete.status).toBe(409);
    });

    it('refuses a return whose odometer went backwards with 422, leaving the rental active', async () => {
      const id = await readyBooking();
      await post(`/v1/test/bookings/${id}/pickup`, { mileage_out: 1000 });
      const res = await api.post(`/v1/test/bookings/${id}/return`, { mileage_in: 999 });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'validation_error', param: 'mileage_in' });
      expect((await api.get(`/v1/bookings/${id}`)).body.state).toBe('active');
    });

    it('returns within the included miles without a charge', async () => {
      const id = await readyBooking();
      await post(`/v1/test/bookings/${id}/pickup`, { mileage_out: 1000 });
      const res = await post(`/v1/test/bookings/${id}/return`, { mileage_in: 1100 });
      expect(res).toMatchObject({ state: 'return_in_review', charge_ids: [], mileage: { miles_used: 100, over_miles: 0, mileage_fee_cents: 0 } });
    });
  });

  describe('payment failure', () => {
    it('answers 402 card_declined and records payment.failed; the customer may pay again; after booking it is a problem', async () => {
      const { id } = await post('/v1/test/bookings', undefined, 201);

      const declined = await api.post(`/v1/test/bookings/${id}/payment/fail`);
      expect(declined.status).toBe(402);
      expect(declined.body.error).toMatchObject({ type: 'payment_error', code: 'card_declined' });
      expect(declined.body.error.request_id).toBe(declined.headers.get('request-id'));
      expect(await eventTypes(id)).toEqual(['booking.created', 'payment.failed']);
      expect((await api.get(`/v1/bookings/${id}/payment`)).body).toMatchObject({ state: 'failed', failure_code: 'card_declined' });
      expect((await api.get(`/v1/bookings/${id}`)).body).toMatchObject({ state: 'pending_payment', gates: { payment: 'failed' } });

      expect(await post(`/v1/test/bookings/${id}/payment/succeed`)).toMatchObject({ state: 'confirmed', event: 'payment.succeeded' });

      const after = await api.post(`/v1/test/bookings/${id}/payment/fail`);
      expect(after.status).toBe(402);
      expect((await api.get(`/v1/bookings/${id}`)).body.state).toBe('problem');
      expect((await eventTypes(id)).slice(-2)).toEqual(['payment.failed', 'booking.problem']);
    });
  });

  describe('charges', () => {
    it('collects a post-trip charge: charge.succeeded and a charge transaction; twice is a 409', async () => {
      const { bookingId, chargeId } = await returnedWithCharge();
      const res = await api.post(`/v1/test/charges/${chargeId}/succeed`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: chargeId, booking_id: bookingId, state: 'succeeded', event: 'charge.succeeded' });
      const audit = await t.db.prisma.auditLog.findFirst({ where: { path: `/v1/test/charges/${chargeId}/succeed` } });
      expect(audit).toMatchObject({ bookingId, status: 200, operation: 'testSucceedCharge' });
      const txn = await t.db.prisma.transaction.findFirst({ where: { chargeId } });
      expect(txn).toMatchObject({ bookingId, type: 'charge', status: 'succeeded', amountCents: 17500 });
      expect(await eventTypes(bookingId)).toContain('charge.succeeded');

      const again = await api.post(`/v1/test/charges/${chargeId}/succeed`);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'invalid_state_transition' });
      expect(again.body.error.message).toContain("'succeeded'");
    });

    it('fails a charge: charge.failed and the booking goes to problem', async () => {
      const { bookingId, chargeId } = await returnedWithCharge();
      const res = await api.post(`/v1/test/charges/${chargeId}/fail`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: chargeId, state: 'failed', event: 'charge.failed', events: ['charge.failed', 'booking.problem'] });
      expect((await api.get(`/v1/bookings/${bookingId}`)).body.state).toBe('problem');
    });

    it('opens a dispute (201 with the dispute, dispute.created) that locks collection', async () => {
      const { bookingId, chargeId } = await returnedWithCharge();
      const res = await api.post(`/v1/test/charges/${chargeId}/dispute`, { reason: 'never drove that far' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ object: 'dispute', charge_id: chargeId, state: 'open', reason: 'never drove that far', livemode: false });
      expect(res.body.id).toMatch(/^dsp_/);
      expect((await api.get(`/v1/bookings/${bookingId}/charges`)).body.data[0].state).toBe('disputed');
      expect((await eventTypes(bookingId)).at(-1)).toBe('dispute.created');

      const collect = await api.post(`/v1/test/charges/${chargeId}/succeed`);
      expect(collect.status).toBe(409);
    });

    it('answers 404 for an unknown charge', async () => {
      const res = await api.post('/v1/test/charges/chg_nope/succeed');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_missing');
    });
  });

  describe('keys', () => {
    it('refuses live keys with 403 sandbox_only and publishable keys with 403 secret_key_required', async () => {
      const { id } = await post('/v1/test/bookings', undefined, 201);
      const live = restClient(t.baseUrl, t.business.live_secret_key);
      const livePublic = restClient(t.baseUrl, t.business.live_public_key);
      const testPublic = restClient(t.baseUrl, t.business.test_public_key);
      for (const path of ['/v1/test/bookings', `/v1/test/bookings/${id}/payment/succeed`, '/v1/test/reset', '/v1/test/charges/chg_x/fail']) {
        for (const client of [live, livePublic]) {
          const res = await client.post(path);
          expect(res.status).toBe(403);
          expect(res.body.error).toMatchObject({ type: 'authorization_error', code: 'sandbox_only' });
        }
        const res = await testPublic.post(path);
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ type: 'authorization_error', code: 'secret_key_required' });
      }
      expect((await api.get(`/v1/bookings/${id}`)).body.state).toBe('pending_payment');
    });

    it('does not reach another business’s bookings', async () => {
      const { id } = await post('/v1/test/bookings', undefined, 201);
      const other = restClient(t.baseUrl, t.other.test_secret_key);
      const res = await other.post(`/v1/test/bookings/${id}/payment/succeed`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_missing');
    });
  });

  describe('idempotency', () => {
    it('replays a simulation with the same Idempotency-Key without a second event', async () => {
      const { id } = await post('/v1/test/bookings', undefined, 201);
      const first = await api.post(`/v1/test/bookings/${id}/payment/succeed`, {}, { 'Idempotency-Key': `pay-${id}` });
      const replay = await api.post(`/v1/test/bookings/${id}/payment/succeed`, {}, { 'Idempotency-Key': `pay-${id}` });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect((await eventTypes(id)).filter((x) => x === 'payment.succeeded')).toHaveLength(1);
    });

    it('replays a declined payment as the same 402 without a second payment.failed', async () => {
      const { id } = await post('/v1/test/bookings', undefined, 201);
      const first = await api.post(`/v1/test/bookings/${id}/payment/fail`, {}, { 'Idempotency-Key': `fail-${id}` });
      const replay = await api.post(`/v1/test/bookings/${id}/payment/fail`, {}, { 'Idempotency-Key': `fail-${id}` });
      expect(first.status).toBe(402);
      expect(replay.status).toBe(402);
      expect(replay.body).toEqual(first.body);
      expect((await eventTypes(id)).filter((x) => x === 'payment.failed')).toHaveLength(1);
    });
  });

  describe('GraphQL', () => {
    it('runs the same simulations as mutations, with the booking reachable from the result', async () => {
      const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
      const created = await gql(`mutation { testCreateBooking(input: {}) { id state event booking { id state vehicle { includedMiles } } } }`);
      expect(created.errors).toBeUndefined();
      const booking = created.data.testCreateBooking;
      expect(booking).toMatchObject({ state: 'pending_payment', event: 'booking.created', booking: { id: booking.id, vehicle: { includedMiles: 200 } } });

      const paid = await gql(`mutation($id: ID!) { testSucceedPayment(bookingId: $id) { state event events booking { gates { payment } } } }`, { id: booking.id });
      expect(paid.data.testSucceedPayment).toMatchObject({ state: 'confirmed', event: 'payment.succeeded', booking: { gates: { payment: 'satisfied' } } });

      const pickup = await gql(`mutation($id: ID!) { testStartRental(bookingId: $id, input: { mileageOut: 10 }) { state } }`, { id: booking.id });
      expect(pickup.errors?.[0].extensions).toMatchObject({ type: 'invalid_request', code: 'booking_not_ready' });

      const declined = await gql(`mutation($id: ID!) { testFailPayment(bookingId: $id) { state } }`, { id: booking.id });
      expect(declined.errors?.[0].extensions).toMatchObject({ type: 'payment_error', code: 'card_declined' });

      const live = graphqlClient(t.baseUrl, t.business.live_secret_key);
      const refused = await live(`mutation { testCreateBooking { id } }`);
      expect(refused.errors?.[0].extensions).toMatchObject({ code: 'sandbox_only' });
    });
  });

  describe('POST /v1/test/reset', () => {
    it("deletes the business's sandbox data only; live data, keys and webhook endpoints stay", async () => {
      // Given live data, a sandbox scenario with a charge and a dispute, and a sandbox webhook endpoint
      const live = restClient(t.baseUrl, t.business.live_secret_key);
      const liveVehicle = await createVehicle(live);
      const liveBooking = await live.post('/v1/bookings', { vehicle_id: liveVehicle.id, ...nextPeriod(), customer: { name: 'Live Customer' } });
      expect(liveBooking.status).toBe(201);
      const { bookingId, chargeId } = await returnedWithCharge();
      await post(`/v1/test/charges/${chargeId}/dispute`, {}, 201);
      const endpoint = await t.db.prisma.webhookEndpoint.create({
        data: { id: 'we_sandbox_reset_test', businessId: t.business.business_id, livemode: false, url: 'http://127.0.0.1:9/hook', enabledEvents: ['*'], enabled: false, secret: 'whsec_x' },
      });
      const otherBooking = await restClient(t.baseUrl, t.other.test_secret_key).post('/v1/test/bookings');
      expect(otherBooking.status).toBe(201);

      // When the sandbox is reset
      const res = await api.post('/v1/test/reset', {}, { 'Idempotency-Key': 'reset-1' });

      // Then every sandbox row of this business is gone, and nothing else
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ object: 'sandbox_reset', livemode: false });
      expect(res.body.deleted.bookings).toBeGreaterThanOrEqual(1);
      expect(res.body.deleted.disputes).toBeGreaterThanOrEqual(1);
      expect(res.body.deleted.events).toBeGreaterThan(10);
      const scope = { businessId: t.business.business_id, livemode: false };
      for (const count of [
        t.db.prisma.booking.count({ where: scope }), t.db.prisma.vehicle.count({ where: scope }), t.db.prisma.customer.count({ where: scope }),
        t.db.prisma.event.count({ where: scope }), t.db.prisma.charge.count({ where: scope }), t.db.prisma.auditLog.count({ where: { ...scope, path: { not: '/v1/test/reset' } } }),
      ]) expect(await count).toBe(0);
      expect((await api.get(`/v1/bookings/${bookingId}`)).status).toBe(404);
      expect((await live.get(`/v1/bookings/${liveBooking.body.id}`)).body.state).toBe('pending_payment');
      expect(await t.db.prisma.webhookEndpoint.findUnique({ where: { id: endpoint.id } })).not.toBeNull();
      expect((await restClient(t.baseUrl, t.other.test_secret_key).get(`/v1/bookings/${otherBooking.body.id}`)).status).toBe(200);

      // And the keys still work: the scenario can be repeated, and the reset itself replays
      expect((await api.post('/v1/test/bookings')).status).toBe(201);
      const replay = await api.post('/v1/test/reset', {}, { 'Idempotency-Key': 'reset-1' });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    });

    it('sets the sandbox website and branding back to new, over REST and GraphQL; the live ones stay', async () => {
      const live = restClient(t.baseUrl, t.business.live_secret_key);
      const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
      const configure = async () => {
        const vehicle = await createVehicle(api);
        const logo = await uploadedImage(api, 'brand_logo');
        expect((await api.post('/v1/website', { published: true, title: 'Sandbox Rentals', contact_phone: '+1 512 555 0100', published_vehicle_ids: [vehicle.id] })).status).toBe(200);
        expect((await api.post('/v1/branding', { primary_color: '#1a73e8', font: 'Inter', logo_file_id: logo })).status).toBe(200);
      };
      // Given a published sandbox website with a vehicle and a branded sandbox with a logo, and a live website
      await configure();
      expect((await live.post('/v1/website', { title: 'Live Rentals' })).status).toBe(200);
      expect((await live.post('/v1/branding', { accent_color: '#ff6d00' })).status).toBe(200);

      // When the sandbox is reset over REST
      const res = await api.post('/v1/test/reset');
      expect(res.status).toBe(200);

      // Then the sandbox website is unpublished and empty again, and the branding has no logo, color or font
      expect((await api.get('/v1/website')).body).toMatchObject({ published: false, title: null, contact_phone: null, published_vehicle_ids: [] });
      expect((await api.get('/v1/branding')).body).toMatchObject({ primary_color: null, font: null, logo_file_id: null });
      expect((await restClient(t.baseUrl, t.business.test_public_key).get('/v1/public/vehicles')).body.data).toEqual([]);
      // And the live ones are as they were
      expect((await live.get('/v1/website')).body).toMatchObject({ title: 'Live Rentals' });
      expect((await live.get('/v1/branding')).body).toMatchObject({ accent_color: '#ff6d00' });

      // And the same over GraphQL
      await configure();
      const reset = await gql('mutation { testReset { deleted { vehicles files } } }');
      expect(reset.errors).toBeUndefined();
      expect(reset.data.testReset.deleted).toEqual({ vehicles: 1, files: 1 });
      const after = await gql('{ website { published title publishedVehicleIds } branding { primaryColor logoFileId font } }');
      expect(after.data).toEqual({ website: { published: false, title: null, publishedVehicleIds: [] }, branding: { primaryColor: null, logoFileId: null, font: null } });
    });
  });
});
