import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { startReceiver } from './support/receiver.ts';

const LIFECYCLE = ['booking.created', 'deposit.secured', 'pickup.ready', 'rental.started', 'return.submitted', 'rental.completed'];

/**
 * the spec's sandbox sequence, end to end: every step over REST, every event to a real HTTP
 * receiver on loopback, signed, in order, and the booking's timeline agrees with what the
 * receiver saw.
 */
describe.each(ENGINES)('sandbox sequence delivered by webhooks on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    t = await startTestApp(engine, { webhookPollMs: 50, sandboxRetryScale: 0.001 });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('delivers booking.created … rental.completed in order, signed, matching the timeline', async () => {
    // Given an endpoint for every event
    const endpoint = await api.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['*'], description: 'sequence' });
    expect(endpoint.status).toBe(201);

    // When a test booking goes through its whole lifecycle
    const created = await api.post('/v1/test/bookings', {});
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ state: 'pending_payment', event: 'booking.created' });
    const id = created.body.id;
    const steps: [string, Record<string, unknown>, number][] = [
      ['payment/succeed', {}, 200],
      ['identity/verify', {}, 200],
      ['agreement/sign', {}, 200],
      ['deposit/secure', {}, 200],
      ['pickup', { mileage_out: 12_000 }, 200],
      ['return', { mileage_in: 12_300 }, 200],
    ];
    for (const [step, body, status] of steps) {
      const res = await api.post(`/v1/test/bookings/${id}/${step}`, body);
      expect({ step, status: res.status, body: res.body }).toMatchObject({ step, status });
    }
    const done = await api.post(`/v1/bookings/${id}/return/complete`);
    expect(done.body.state).toBe('completed');

    // Then the receiver gets every event of the booking, the lifecycle ones in the spec's order
    const eventsOfBooking = (await t.db.prisma.event.findMany({ where: { bookingId: id } })).length;
    await receiver.waitFor((all) => all.filter((r) => r.json?.data?.object?.booking_id === id || r.json?.data?.object?.id === id).length >= eventsOfBooking);
    await t.app.worker!.drain();
    const verifier = new Webhook(endpoint.body.secret);
    const ours = receiver.received.filter((r) => r.json?.data?.object?.id === id || r.json?.data?.object?.booking_id === id);
    for (const r of ours) verifier.verify(r.body, Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)])));
    // One endpoint receives its events one at a time, in the order they happened.
    const types = ours.map((r) => r.json.type);
    expect(ours.map((r) => r.json.id)).toEqual(ours.map((r) => r.json.id).sort());
    const lifecycle = types.filter((type) => LIFECYCLE.includes(type));
    expect(lifecycle).toEqual(LIFECYCLE);
    expect(types).toEqual(expect.arrayContaining(['payment.succeeded', 'identity.verified', 'agreement.signed']));

    // And the timeline lists the calls, events and deliveries in order, with matching counts
    const timeline = await api.get(`/v1/bookings/${id}/timeline`);
    expect(timeline.status).toBe(200);
    const counts = timeline.body.counts;
    expect(counts.events).toBe(eventsOfBooking);
    expect(counts.deliveries).toBe(ours.length);
    expect(counts.actions).toBe(steps.length + 2); // the test booking, six steps, the completion
    const entries = timeline.body.entries as { kind: string; at: string; event_type: string | null; path: string | null }[];
    expect(entries.filter((e) => e.kind === 'api_call').map((e) => e.path)).toEqual([
      '/v1/test/bookings', ...steps.map(([step]) => `/v1/test/bookings/${id}/${step}`), `/v1/bookings/${id}/return/complete`,
    ]);
    expect(entries.filter((e) => e.kind === 'event').map((e) => e.event_type).filter((type) => LIFECYCLE.includes(type!))).toEqual(LIFECYCLE);
    const times = entries.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});
