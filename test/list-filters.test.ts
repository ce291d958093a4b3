import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/*
 * The filters of lists (bookings, charges, disputes): by state, type and owner, and by
 * creation time as `created[gte]` / `created[lt]` over REST (Stripe's brackets) and
 * `createdGte` / `createdLt` over GraphQL. A bad value names its parameter.
 */
describe.each(ENGINES)('list filters on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  let vehicleId: string;
  let otherVehicleId: string;
  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
    otherVehicleId = (await createVehicle(api, { name: 'Honda Civic' })).id;
  });
  afterAll(async () => t?.close());

  async function activeBooking() {
    const booking = await createBooking(api, vehicleId);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure', 'pickup']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    return booking;
  }
  const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('filters bookings by state, vehicle, start time and creation time', async () => {
    const first = await createBooking(api, vehicleId);
    await pause();
    const boundary = new Date().toISOString();
    await pause();
    const second = await createBooking(api, otherVehicleId);
    expect((await api.post(`/v1/bookings/${second.id}/cancel`)).status).toBe(200);

    expect(ids(await api.get(`/v1/bookings?created[gte]=${boundary}&limit=100`))).toEqual([second.id]);
    expect(ids(await api.get(`/v1/bookings?created[lt]=${boundary}&limit=100`))).toContain(first.id);
    expect(ids(await api.get(`/v1/bookings?created[lt]=${boundary}&limit=100`))).not.toContain(second.id);
    expect(ids(await api.get(`/v1/bookings?state=canceled&vehicle_id=${otherVehicleId}`))).toEqual([second.id]);
    expect(ids(await api.get(`/v1/bookings?start_at[gte]=${encodeURIComponent(second.start_at)}&start_at[lt]=${encodeURIComponent(second.end_at)}&limit=100`))).toEqual([second.id]);

    const res = await gql(`query($gte: DateTime) { bookings(createdGte: $gte, first: 100) { edges { node { id } } } }`, { gte: boundary });
    expect(res.data.bookings.edges.map((e: any) => e.node.id)).toEqual([second.id]);

    const bad = await api.get('/v1/bookings?created[gte]=yesterday');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'parameter_invalid', param: 'created[gte]' });
    expect((await api.get('/v1/bookings?created[after]=2026-01-01T00:00:00Z')).body.error).toMatchObject({ code: 'parameter_unknown', param: 'created[after]' });
    expect((await api.get('/v1/bookings?state=lost')).body.error).toMatchObject({ code: 'parameter_invalid', param: 'state' });
  });

  it("filters a booking's and a customer's charges by state, type and creation time, and disputes by creation time", async () => {
    const booking = await activeBooking();
    const fuel = (await api.post(`/v1/bookings/${booking.id}/charges`, { type: 'fuel', amount_cents: 1500, description: 'Fuel' })).body;
    await pause();
    const boundary = new Date().toISOString();
    await pause();
    const damage = (await api.post(`/v1/bookings/${booking.id}/charges`, { type: 'damage', amount_cents: 9000, description: 'Dent' })).body;
    expect((await api.post(`/v1/charges/${fuel.id}/waive`)).status).toBe(200);

    expect(ids(await api.get(`/v1/bookings/${booking.id}/charges?type=damage`))).toEqual([damage.id]);
    expect(ids(await api.get(`/v1/bookings/${booking.id}/charges?state=waived`))).toEqual([fuel.id]);
    expect(ids(await api.get(`/v1/bookings/${booking.id}/charges?created[gte]=${boundary}`))).toEqual([damage.id]);
    expect(ids(await api.get(`/v1/customers/${booking.customer_id}/charges?created[lt]=${boundary}&type=fuel`))).toEqual([fuel.id]);

    const dispute = (await api.post(`/v1/charges/${damage.id}/disputes`, { reason: 'not_me' })).body;
    expect(ids(await api.get(`/v1/disputes?created[gte]=${boundary}&booking_id=${booking.id}`))).toEqual([dispute.id]);
    expect(ids(await api.get(`/v1/disputes?created[lt]=${boundary}&booking_id=${booking.id}`))).toEqual([]);
    const viaGraphql = await gql(`query($id: ID!, $lt: DateTime) { bookingCharges(bookingId: $id, createdLt: $lt, state: waived) { edges { node { id type } } } }`, { id: booking.id, lt: boundary });
    expect(viaGraphql.data.bookingCharges.edges).toEqual([{ node: { id: fuel.id, type: 'fuel' } }]);
  });
});
