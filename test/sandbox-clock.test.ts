import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { startReceiver } from './support/receiver.ts';

/*
 * The sandbox clock: a business's sandbox time moved forward through the API; what falls due
 * happens through the production steps (a hold expires, a rental goes late, a webhook retry
 * is sent), with the same events; a reset puts it back to real time. Live keys never see it.
 */
describe.each(ENGINES)('the sandbox clock on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    // The first two deliveries fail: the second retry is five minutes away, so it waits on the clock.
    receiver = await startReceiver((n) => (n < 2 ? 500 : 204));
    t = await startTestApp(engine, { webhookPollMs: 100 });
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const sandboxNow = async () => new Date((await api.get('/v1/test/clock')).body.now);

  it('expires a hold, makes a rental late and brings a webhook retry due by advancing the clock, then resets to real time', async () => {
    const start = await api.get('/v1/test/clock');
    expect(start.body).toMatchObject({ object: 'test_clock', offset_seconds: 0 });
    expect(Math.abs(Date.parse(start.body.now) - Date.now())).toBeLessThan(5_000);

    // A hold of 30 minutes.
    const vehicle = await createVehicle(api);
    const unpaid = await createBooking(api, vehicle.id);
    const expired = await api.post('/v1/test/clock/advance', { seconds: 31 * 60 });
    expect(expired.status).toBe(200);
    expect(expired.body).toMatchObject({ offset_seconds: 31 * 60, expired_holds: 1, late_rentals: 0 });
    expect((await api.get(`/v1/bookings/${unpaid.id}`)).body).toMatchObject({ state: 'canceled', cancellation_reason: 'hold_expired' });
    expect((await api.get(`/v1/events?booking_id=${unpaid.id}&type=booking.canceled`)).body.data).toHaveLength(1);

    // A rental picked up in sandbox time, then the clock moved past its end and grace.
    const now = await sandboxNow();
    const begin = new Date(now.getTime() + 20 * 60_000);
    begin.setUTCSeconds(0, 0);
    const end = new Date(begin.getTime() + 86_400_000);
    const rental = await createBooking(api, vehicle.id, { start_at: begin.toISOString(), end_at: end.toISOString() });
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${rental.id}/${step}`)).status).toBe(200);
    expect((await api.post(`/v1/bookings/${rental.id}/pickup/complete`, { mileage_out: 5 })).body.state).toBe('active');

    const endpoint = await api.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['rental.late'] });
    expect(endpoint.status).toBe(201);
    const late = await api.post('/v1/test/clock/advance', { to: new Date(end.getTime() + 61 * 60_000).toISOString() });
    expect(late.body).toMatchObject({ late_rentals: 1 });
    expect((await api.get(`/v1/bookings/${rental.id}`)).body.state).toBe('late');

    // rental.late is refused twice (its first retry comes after 5 s); the next waits 5 minutes, until the clock moves.
    await receiver.waitFor((all) => all.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.map((r) => r.json?.type)).toEqual(['rental.late', 'rental.late']);
    const retry = await api.post('/v1/test/clock/advance', { seconds: 3600 });
    expect(retry.body.retries_due).toBe(1);
    await receiver.waitFor((all) => all.length >= 3, 5_000);
    expect(receiver.received[2].json).toMatchObject({ type: 'rental.late' });

    const wrong = await api.post('/v1/test/clock/advance', { seconds: 60, to: new Date().toISOString() });
    expect(wrong.status).toBe(422);
    const past = await api.post('/v1/test/clock/advance', { to: new Date().toISOString() });
    expect(past.body.error).toMatchObject({ code: 'parameter_invalid', param: 'to' });

    const reset = await api.post('/v1/test/reset');
    expect(reset.status).toBe(200);
    expect((await api.get('/v1/test/clock')).body.offset_seconds).toBe(0);
    expect((await restClient(t.baseUrl, t.business.live_secret_key).get('/v1/test/clock')).status).toBeGreaterThanOrEqual(400);
  });

  it('runs at most ten steps of 366 days ahead: the next is refused naming its parameter, and a reset starts again', async () => {
    await api.post('/v1/test/reset');
    for (let i = 0; i < 10; i++) expect((await api.post('/v1/test/clock/advance', { seconds: 366 * 86_400 })).status).toBe(200);
    const beyond = await api.post('/v1/test/clock/advance', { seconds: 1 });
    expect(beyond.status).toBe(422);
    expect(beyond.body.error).toMatchObject({ code: 'parameter_invalid', param: 'seconds' });
    expect((await api.get('/v1/test/clock')).body.offset_seconds).toBe(10 * 366 * 86_400);
    await api.post('/v1/test/reset');
    expect((await api.post('/v1/test/clock/advance', { seconds: 1 })).status).toBe(200);
    await api.post('/v1/test/reset');
  });

  it('reads and advances over GraphQL', async () => {
    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    await api.post('/v1/test/reset');
    const moved = await gql(`mutation { testAdvanceClock(input: { seconds: 60 }) { offsetSeconds now } }`);
    expect(moved.errors).toBeUndefined();
    expect(moved.data.testAdvanceClock.offsetSeconds).toBe(60);
    const read = await gql(`query { testClock { offsetSeconds } }`);
    expect(read.data.testClock).toEqual({ offsetSeconds: 60 });
    await api.post('/v1/test/reset');
  });
});
