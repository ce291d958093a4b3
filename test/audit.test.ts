import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/**
 * One audit record for every write, whatever its outcome, naming the objects the operation
 * read or wrote (reported by the tenant scope as it ran), never guessed from the path.
 */
describe.each(ENGINES)('audit on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(() => t?.close());

  const auditOf = (res: { headers: Headers }) => t.db.prisma.auditLog.findFirstOrThrow({ where: { requestId: res.headers.get('request-id')! } });

  it('files a write with the objects it made, and a refused write on the booking it reached', async () => {
    const vehicle = await createVehicle(api);
    const created = await api.post('/v1/bookings', { vehicle_id: vehicle.id, start_at: '2031-05-01T10:00:00Z', end_at: '2031-05-03T10:00:00Z', customer: { name: 'Grace' } });
    const audit = await auditOf(created);
    expect(audit).toMatchObject({ method: 'POST', path: '/v1/bookings', operation: 'createBooking', status: 201, bookingId: created.body.id });
    expect(audit.objects).toEqual(expect.arrayContaining([created.body.id, created.body.customer_id, vehicle.id]));

    await api.post(`/v1/bookings/${created.body.id}/cancel`);
    const refused = await api.post(`/v1/bookings/${created.body.id}/cancel`);
    expect(refused.body.error.code).toBe('invalid_state_transition');
    expect(await auditOf(refused)).toMatchObject({ status: 409, bookingId: created.body.id, operation: 'cancelBooking' });
    const timeline = await api.get(`/v1/bookings/${created.body.id}/timeline`);
    const calls = timeline.body.entries.filter((e: { kind: string }) => e.kind === 'api_call');
    expect(calls.map((c: { status: number }) => c.status)).toEqual([201, 200, 409]);
  });

  it("does not file a request about another business's booking on that booking's timeline", async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    const foreign = await restClient(t.baseUrl, t.other.test_secret_key).post(`/v1/bookings/${booking.id}/cancel`);
    expect(foreign.status).toBe(404);
    const audit = await t.db.prisma.auditLog.findFirstOrThrow({ where: { requestId: foreign.headers.get('request-id')! } });
    expect(audit).toMatchObject({ businessId: t.other.business_id, status: 404, bookingId: null, objects: [] });
    const timeline = await api.get(`/v1/bookings/${booking.id}/timeline`);
    expect(timeline.body.counts.actions).toBe(1); // its creation only
  });

  it('audits GraphQL mutations like REST writes, and no reads', async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const res = await gql(`mutation { cancelBooking(id: "${booking.id}") { state } }`);
    expect(res.data.cancelBooking.state).toBe('canceled');
    expect(await auditOf(res)).toMatchObject({ method: 'POST', path: '/graphql', operation: 'cancelBooking', status: 200, bookingId: booking.id });
    const read = await gql(`{ booking(id: "${booking.id}") { id } }`);
    expect(await t.db.prisma.auditLog.findFirst({ where: { requestId: read.headers.get('request-id')! } })).toBeNull();
  });
});
