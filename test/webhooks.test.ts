import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { startReceiver } from './support/receiver.ts';

const headersOf = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));

describe.each(ENGINES)('webhooks on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;

  beforeAll(async () => {
    t = await startTestApp(engine, { webhookPollMs: 50, sandboxRetryScale: 0.001 });
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(() => t?.close());

  it('manages endpoints: the secret is shown once, events are validated, updates apply', async () => {
    const created = await api.post('/v1/developers/webhooks', { url: 'https://example.com/hooks', enabled_events: ['booking.created'], description: 'CRM', metadata: { team: 'ops' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'webhook_endpoint', url: 'https://example.com/hooks', enabled_events: ['booking.created'], enabled: true, metadata: { team: 'ops' } });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);

    const read = await api.get(`/v1/developers/webhooks/${created.body.id}`);
    expect(read.body.secret).toBeNull();
    const listed = await api.get('/v1/developers/webhooks');
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);

    const updated = await api.post(`/v1/developers/webhooks/${created.body.id}`, { enabled: false, enabled_events: ['*'] });
    expect(updated.body).toMatchObject({ enabled: false, enabled_events: ['*'] });

    const bad = await api.post('/v1/developers/webhooks', { url: 'https://example.com', enabled_events: ['booking.exploded'] });
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('enabled_events');
    const live = await restClient(t.baseUrl, t.business.live_secret_key).post('/v1/developers/webhooks', { url: 'http://example.com', enabled_events: ['*'] });
    expect(live.body.error).toMatchObject({ code: 'url_not_allowed', param: 'url', message: 'Invalid url: live webhook endpoints must use https.' });
  });

  it('delivers signed events that verify with the standardwebhooks library', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await api.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['booking.created', 'booking.canceled'] });
      const vehicle = await createVehicle(api);
      const booking = await createBooking(api, vehicle.id);
      await api.post(`/v1/bookings/${booking.id}/cancel`);
      await receiver.waitFor((all) => all.filter((r) => r.json?.data?.object?.id === booking.id).length >= 2);

      const verifier = new Webhook(endpoint.body.secret);
      const mine = receiver.received.filter((r) => r.json?.data?.object?.id === booking.id);
      expect(mine.map((r) => r.json.type)).toEqual(['booking.created', 'booking.canceled']);
      for (const r of mine) {
        const payload = verifier.verify(r.body, headersOf(r.headers)) as any;
        expect(payload).toMatchObject({ object: 'event', api_version: 'v1', livemode: false, data: { object: { object: 'booking', id: booking.id } } });
        expect(r.headers['webhook-id']).toBe(payload.id);
      }
      // The event is the same object the events API shows.
      const fromApi = await api.get(`/v1/events/${mine[0].json.id}`);
      expect(fromApi.body).toEqual(mine[0].json);
      expect(() => verifier.verify(mine[0].body.replace('booking', 'bookinG'), headersOf(mine[0].headers))).toThrow();
    } finally {
      await receiver.close();
    }
  });

  it('retries a 500 twice then 204: three attempts, the same webhook-id, delivery.retrying emitted', async () => {
    const receiver = await startReceiver((n) => (n < 2 ? 500 : 204));
    try {
      const endpoint = await api.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['booking.created'] });
      const vehicle = await createVehicle(api);
      const booking = await createBooking(api, vehicle.id);
      await receiver.waitFor((all) => all.length >= 3);
      await t.app.worker!.drain();

      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      const attempts = await api.get(`/v1/developers/webhooks/${endpoint.body.id}/deliveries`);
      const rows = [...attempts.body.data].reverse();
      expect(rows.map((d: any) => [d.attempt, d.response_status])).toEqual([[1, 500], [2, 500], [3, 204]]);
      expect(rows[0]).toMatchObject({ object: 'webhook_delivery', event_type: 'booking.created', url: receiver.url });
      expect(rows[0].next_retry_at).not.toBeNull();
      expect(rows[2].next_retry_at).toBeNull();
      expect(rows.every((d: any) => Number.isInteger(d.duration_ms))).toBe(true);

      const retrying = await api.get(`/v1/events?type=delivery.retrying&booking_id=${booking.id}`);
      expect(retrying.body.data).toHaveLength(2);
      expect(retrying.body.data[0].data.object).toMatchObject({ object: 'webhook_delivery', response_status: 500 });
    } finally {
      await receiver.close();
    }
  });

  it('counts no answer within the timeout as a failed attempt, and resends by hand', async () => {
    // A timeout the resend's prompt answer meets even on a loaded machine; the first answer comes far later.
    const slow = await startTestApp(engine, { webhookPollMs: 50, webhookTimeoutMs: 1_000, sandboxRetryScale: 1 });
    const receiver = await startReceiver((n) => (n === 0 ? new Promise((r) => setTimeout(() => r(204), 4_000)) : 204));
    try {
      const client = restClient(slow.baseUrl, slow.business.test_secret_key);
      const endpoint = await client.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['booking.created'] });
      await createBooking(client, (await createVehicle(client)).id);
      await receiver.waitFor((all) => all.length >= 1);
      await slow.app.worker!.drain();
      const first = (await client.get(`/v1/developers/webhooks/${endpoint.body.id}/deliveries`)).body.data[0];
      expect(first).toMatchObject({ attempt: 1, response_status: null });
      expect(first.error).toMatch(/no answer within 1000 ms/);

      const resend = await client.post(`/v1/developers/webhooks/${endpoint.body.id}/deliveries/${first.id}/retry`);
      expect(resend.status).toBe(200);
      await receiver.waitFor((all) => all.length >= 2);
      await slow.app.worker!.drain();
      const after = (await client.get(`/v1/developers/webhooks/${endpoint.body.id}/deliveries`)).body.data;
      expect(after[0]).toMatchObject({ attempt: 2, response_status: 204 });
    } finally {
      await receiver.close();
      await slow.close();
    }
  });

  it('answers 404 when retention deletes the message between the read of its attempt and the resend', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await api.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['booking.created'] });
      const booking = await createBooking(api, (await createVehicle(api)).id);
      await receiver.waitFor((all) => all.some((r) => r.json?.data?.object?.id === booking.id));
      await t.app.worker!.drain();
      const attempt = (await api.get(`/v1/developers/webhooks/${endpoint.body.id}/deliveries`)).body.data[0];
      // The race, made certain: the attempt is still there to read, the message it belongs to
      // is gone by the time the resend writes (a trigger skips the write, as a delete would).
      await t.db.prisma.$executeRawUnsafe(`CREATE FUNCTION skip_message_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`);
      await t.db.prisma.$executeRawUnsafe(`CREATE TRIGGER skip_message_update BEFORE UPDATE ON "WebhookMessage" FOR EACH ROW EXECUTE FUNCTION skip_message_update()`);
      try {
        const resend = await api.post(`/v1/developers/webhooks/${endpoint.body.id}/deliveries/${attempt.id}/retry`);
        expect(resend.status).toBe(404);
        expect(resend.body.error).toMatchObject({ code: 'resource_missing', message: `No such webhook delivery: '${attempt.id}'` });
      } finally {
        await t.db.prisma.$executeRawUnsafe(`DROP TRIGGER skip_message_update ON "WebhookMessage"`);
        await t.db.prisma.$executeRawUnsafe(`DROP FUNCTION skip_message_update()`);
      }
    } finally {
      await receiver.close();
    }
  });

  it('sends a test webhook to one sandbox endpoint only, recorded like any other', async () => {
    const receiver = await startReceiver();
    const other = await startReceiver();
    try {
      const endpoint = await api.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['rental.started'] });
      await api.post('/v1/developers/webhooks', { url: other.url, enabled_events: ['*'] });
      const sent = await api.post(`/v1/test/webhooks/${endpoint.body.id}/send`, { type: 'rental.started' });
      expect(sent.status).toBe(200);
      expect(sent.body).toMatchObject({ object: 'event', type: 'rental.started' });
      await receiver.waitFor((all) => all.some((r) => r.json?.id === sent.body.id));
      await t.app.worker!.drain();
      expect(other.received.some((r) => r.json?.id === sent.body.id)).toBe(false);
      const deliveries = await api.get(`/v1/developers/webhooks/${endpoint.body.id}/deliveries?event_id=${sent.body.id}`);
      expect(deliveries.body.data[0]).toMatchObject({ event_id: sent.body.id, response_status: 204, attempt: 1 });

      const live = await restClient(t.baseUrl, t.business.live_secret_key).post(`/v1/test/webhooks/${endpoint.body.id}/send`);
      expect(live.body.error).toMatchObject({ type: 'authorization_error', code: 'sandbox_only' });
    } finally {
      await receiver.close();
      await other.close();
    }
  });

  it('lists events with filters and keyset pages', async () => {
    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id);
    const forBooking = await api.get(`/v1/events?booking_id=${booking.id}`);
    expect(forBooking.body.data.map((e: any) => e.type)).toEqual(['booking.created']);
    const created = await api.get('/v1/events?type=booking.created&limit=2');
    expect(created.body.data.every((e: any) => e.type === 'booking.created')).toBe(true);
    expect(created.body.has_more).toBe(true);
    const future = await api.get(`/v1/events?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(future.body.data).toEqual([]);
    const foreign = await restClient(t.baseUrl, t.other.test_secret_key).get(`/v1/events/${forBooking.body.data[0].id}`);
    expect(foreign.status).toBe(404);
  });
});
