import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/*
 * Money moving through the public API (the contract's "Money"): checkout, the payment it
 * prepares and the transactions that record every movement, over REST and GraphQL, on both
 * engines. The sandbox stands in only for what the customer and the processor do.
 */
describe.each(ENGINES)('money on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  let vehicleId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(async () => t?.close());

  it('checks out a pending_payment booking: the answer carries what the customer pays with, the booking holds its vehicle in checkout_started', async () => {
    const booking = await createBooking(api, vehicleId);
    const res = await api.post(`/v1/bookings/${booking.id}/checkout`, undefined, { 'idempotency-key': `co-${booking.id}` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'checkout',
      id: expect.stringMatching(/^cs_/),
      livemode: false,
      booking_id: booking.id,
      payment_id: expect.stringMatching(/^pay_/),
      amount_cents: booking.total_cents,
      currency: 'usd',
      client_secret: expect.stringMatching(/^pi_sandbox_\w+_secret_\w+$/),
      url: null,
      expires_at: booking.hold_expires_at,
      created_at: expect.any(String),
    });
    // A retry with the same key is the same checkout, not a second one.
    const replay = await api.post(`/v1/bookings/${booking.id}/checkout`, undefined, { 'idempotency-key': `co-${booking.id}` });
    expect(replay.body).toEqual(res.body);

    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'checkout_started', hold_expires_at: booking.hold_expires_at });
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ id: res.body.payment_id, state: 'checkout_started', amount_cents: booking.total_cents });
    const events = (await api.get(`/v1/events?booking_id=${booking.id}`)).body.data.map((e: { type: string }) => e.type);
    expect(events).toContain('booking.checkout_started');
    // The secret is the customer's: it is in no event.
    expect(JSON.stringify((await api.get(`/v1/events?booking_id=${booking.id}`)).body)).not.toContain(res.body.client_secret);

    // A second checkout without the key is refused by the booking's state table.
    const again = await api.post(`/v1/bookings/${booking.id}/checkout`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict', code: 'invalid_state_transition', current_state: 'checkout_started' });
  });

  it('records the payment the customer completes as a transaction; the list reconciles with the payment', async () => {
    const booking = await createBooking(api, vehicleId);
    expect((await api.get(`/v1/bookings/${booking.id}/transactions`)).body).toEqual({ object: 'list', data: [], has_more: false, url: `/v1/bookings/${booking.id}/transactions` });
    await api.post(`/v1/bookings/${booking.id}/checkout`);
    expect((await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
    const list = await api.get(`/v1/bookings/${booking.id}/transactions`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { object: 'transaction', id: expect.stringMatching(/^txn_/), livemode: false, booking_id: booking.id, charge_id: null, type: 'payment', status: 'succeeded', amount_cents: booking.total_cents, currency: 'usd', created_at: expect.any(String) },
    ]);
    const payment = (await api.get(`/v1/bookings/${booking.id}/payment`)).body;
    expect(payment).toMatchObject({ state: 'succeeded', amount_cents: booking.total_cents });
  });

  it('checks out over GraphQL, with the booking and payment in the same answer, and lists transactions as a connection', async () => {
    const booking = await createBooking(api, vehicleId);
    const res = await gql(
      `mutation($id: ID!) { createCheckout(bookingId: $id) { id bookingId amountCents currency clientSecret url expiresAt booking { state } payment { state } } }`,
      { id: booking.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.createCheckout).toMatchObject({
      id: expect.stringMatching(/^cs_/), bookingId: booking.id, amountCents: booking.total_cents, currency: 'usd', clientSecret: expect.stringMatching(/^pi_sandbox_/), url: null,
      expiresAt: booking.hold_expires_at, booking: { state: 'checkout_started' }, payment: { state: 'checkout_started' },
    });
    await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`);
    const list = await gql(`query($id: ID!) { bookingTransactions(bookingId: $id, first: 10) { edges { node { type status amountCents } } pageInfo { hasNextPage } } }`, { id: booking.id });
    expect(list.errors).toBeUndefined();
    expect(list.data.bookingTransactions).toEqual({ edges: [{ node: { type: 'payment', status: 'succeeded', amountCents: booking.total_cents } }], pageInfo: { hasNextPage: false } });

    const refused = await gql(`mutation($id: ID!) { createCheckout(bookingId: $id) { id } }`, { id: booking.id });
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'invalid_state_transition', current_state: 'confirmed' });
  });

  it("refuses another business's booking, and live payments while no processor is configured, changing nothing", async () => {
    const booking = await createBooking(api, vehicleId);
    const foreign = await restClient(t.baseUrl, t.other.test_secret_key).post(`/v1/bookings/${booking.id}/checkout`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'resource_missing' });

    const live = restClient(t.baseUrl, t.business.live_secret_key);
    const liveBooking = await createBooking(live, (await createVehicle(live)).id);
    const res = await live.post(`/v1/bookings/${liveBooking.id}/checkout`);
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ type: 'integration_error', code: 'processor_not_configured' });
    expect((await live.get(`/v1/bookings/${liveBooking.id}`)).body).toMatchObject({ state: 'pending_payment' });
    expect((await live.get(`/v1/bookings/${liveBooking.id}/payment`)).body).toMatchObject({ state: 'requires_payment' });
  });
});
