import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { newEndpointSecret } from '../src/domain/webhooks/signing.ts';
import { createGuardedDispatcher, guardedFetch } from '../src/webhooks/guarded-dispatcher.ts';
import { restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { startReceiver, type Received } from './support/receiver.ts';

/**
 * Webhook endpoints may not target the server's own network (SSRF): refused when created or
 * updated, and refused again when the worker connects (a name may resolve elsewhere by then).
 * WEBHOOK_PRIVATE_URLS decides where private targets are allowed: `sandbox` (default), `deny`,
 * `allow`.
 */

const LIVE_TAIL = '; live webhook endpoints must be reachable on the public internet.';
const REFUSED_TAIL = '; deliveries from this environment go only to public internet addresses';

type Client = ReturnType<typeof restClient>;

async function deliveriesOf(api: Client, endpointId: string, atLeast = 1): Promise<any[]> {
  return vi.waitFor(
    async () => {
      const res = await api.get(`/v1/developers/webhooks/${endpointId}/deliveries`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeGreaterThanOrEqual(atLeast);
      return res.body.data;
    },
    { timeout: 20_000, interval: 100 },
  );
}

/** An endpoint row written straight to the database, past the API's check (what DNS rebinding achieves). */
async function insertEndpoint(t: TestApp, livemode: boolean, url: string, enabledEvents: string[]) {
  return t.db.prisma.webhookEndpoint.create({
    data: { id: newId('webhookEndpoint'), businessId: t.business.business_id, livemode, url, enabledEvents, secret: newEndpointSecret() },
  });
}

describe('webhook targets under the default policy (sandbox) on pglite', () => {
  let t: TestApp;
  let live: Client;
  let sandbox: Client;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp('pglite', { webhookPollMs: 50, sandboxRetryScale: 0.001 });
    live = restClient(t.baseUrl, t.business.live_secret_key);
    sandbox = restClient(t.baseUrl, t.business.test_secret_key);
    receiver = await startReceiver();
    port = Number(new URL(receiver.url).port);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('WEBHOOK_PRIVATE_URLS is read by loadConfig: sandbox by default, anything unknown refused', () => {
    expect(loadConfig({}).webhookPrivateUrls).toBe('sandbox');
    expect(loadConfig({ WEBHOOK_PRIVATE_URLS: 'deny' }).webhookPrivateUrls).toBe('deny');
    expect(loadConfig({ WEBHOOK_PRIVATE_URLS: 'allow' }).webhookPrivateUrls).toBe('allow');
    expect(() => loadConfig({ WEBHOOK_PRIVATE_URLS: 'yes' })).toThrow("WEBHOOK_PRIVATE_URLS must be one of deny, sandbox, allow (default sandbox: private addresses only in the sandbox), got 'yes'");
  });

  it('a live key may not create an endpoint on a loopback, private or link-local target: 422 url_not_allowed, nothing created', async () => {
    const refused: [string, string][] = [
      [`https://127.0.0.1:${port}/hooks`, '127.0.0.1 is a loopback address'],
      ['https://localhost/hooks', 'localhost is a loopback host name'],
      ['https://[::1]/x', '::1 is a loopback address'],
      ['https://169.254.169.254/', '169.254.169.254 is a link-local address (the cloud metadata service)'],
      ['https://10.0.0.5/', '10.0.0.5 is a private (RFC 1918) address'],
      ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address'],
      ['https://2130706433/', '127.0.0.1 is a loopback address'],
      ['https://0x7f.0.0.1/', '127.0.0.1 is a loopback address'],
    ];
    for (const [url, reason] of refused) {
      const res = await live.post('/v1/developers/webhooks', { url, enabled_events: ['*'] });
      expect({ url, status: res.status, error: res.body.error }).toMatchObject({
        url,
        status: 422,
        error: { type: 'validation_error', code: 'url_not_allowed', param: 'url', message: `Invalid url: ${reason}${LIVE_TAIL}` },
      });
    }
    expect((await live.get('/v1/developers/webhooks')).body.data).toEqual([]);
    expect(await t.db.prisma.webhookEndpoint.count({ where: { businessId: t.business.business_id, livemode: true } })).toBe(0);
  });

  it('a live key may not move an endpoint onto a private target either; a name that does not resolve is accepted', async () => {
    // No external name resolves on a machine without internet: accepted, the worker checks at connect time.
    const created = await live.post('/v1/developers/webhooks', { url: 'https://hooks.example.com/x', enabled_events: ['booking.created'] });
    expect(created.status).toBe(201);
    const moved = await live.post(`/v1/developers/webhooks/${created.body.id}`, { url: `https://127.0.0.1:${port}/hooks` });
    expect(moved.status).toBe(422);
    expect(moved.body.error).toMatchObject({ code: 'url_not_allowed', param: 'url', message: `Invalid url: 127.0.0.1 is a loopback address${LIVE_TAIL}` });
    expect((await live.get(`/v1/developers/webhooks/${created.body.id}`)).body.url).toBe('https://hooks.example.com/x');
    await t.db.prisma.webhookEndpoint.delete({ where: { id: created.body.id } });
  });

  it('a sandbox key may target a loopback receiver and gets its deliveries', async () => {
    const endpoint = await sandbox.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['rental.started'] });
    expect(endpoint.status).toBe(201);
    const sent = await sandbox.post(`/v1/test/webhooks/${endpoint.body.id}/send`, { type: 'rental.started' });
    expect(sent.status).toBe(200);
    await receiver.waitFor((all) => all.some((r) => r.json?.id === sent.body.id));
    const [delivery] = await deliveriesOf(sandbox, endpoint.body.id);
    expect(delivery).toMatchObject({ attempt: 1, response_status: 204, error: null });
    await t.db.prisma.webhookEndpoint.update({ where: { id: endpoint.body.id }, data: { enabled: false } });
  });

  it('refuses at connect time a live endpoint the API never checked: a failed attempt naming the refusal, retried on schedule, nothing received', async () => {
    const before = receiver.received.length;
    const endpoint = await insertEndpoint(t, true, receiver.url, ['booking.created']);
    const booking = await createBooking(live, (await createVehicle(live)).id);

    const [first] = await deliveriesOf(live, endpoint.id);
    expect(first).toMatchObject({ object: 'webhook_delivery', attempt: 1, event_type: 'booking.created', url: receiver.url, response_status: null });
    expect(first.error).toBe(`request failed: webhook target refused: 127.0.0.1 is a loopback address${REFUSED_TAIL}`);
    expect(first.next_retry_at).not.toBeNull();

    // The live schedule retries after 5 s, and is refused again.
    const [second] = await deliveriesOf(live, endpoint.id, 2);
    expect(second).toMatchObject({ attempt: 2, response_status: null, error: first.error });
    expect(receiver.received.length).toBe(before);
    expect(receiver.received.some((r) => r.json?.data?.object?.id === booking.id)).toBe(false);
    await t.db.prisma.webhookEndpoint.update({ where: { id: endpoint.id }, data: { enabled: false } });
  });

  it('refuses at connect time a name that resolves to a private address, also when DNS answers change (rebinding)', async () => {
    const before = receiver.received.length;
    const localhostEndpoint = await insertEndpoint(t, true, `http://localhost:${port}/hooks`, ['booking.created']);
    await createBooking(live, (await createVehicle(live)).id);
    const [attempt] = await deliveriesOf(live, localhostEndpoint.id);
    expect(attempt.error).toBe(`request failed: webhook target refused: localhost is a loopback host name${REFUSED_TAIL}`);
    await t.db.prisma.webhookEndpoint.update({ where: { id: localhostEndpoint.id }, data: { enabled: false } });

    // The guard itself: the address is checked in `connect.lookup`, whatever it was when the endpoint was made.
    const rebound = createGuardedDispatcher({ resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }] });
    const failure = await guardedFetch(`http://hooks.rebind.example:${port}/hooks`, { method: 'POST', body: '{}' }, rebound).catch((err) => err);
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure.cause).toMatchObject({ code: 'ERR_WEBHOOK_TARGET_REFUSED', message: `webhook target refused: hooks.rebind.example resolves to 127.0.0.1, a loopback address${REFUSED_TAIL}` });
    const toLoopback = createGuardedDispatcher({ resolve: async () => [{ address: '::ffff:127.0.0.1', family: 6 }] });
    const mapped = await guardedFetch(`http://hooks.rebind.example:${port}/hooks`, { method: 'POST', body: '{}' }, toLoopback).catch((err) => err);
    expect(mapped.cause?.message).toBe(`webhook target refused: hooks.rebind.example resolves to ::ffff:127.0.0.1, an IPv4-mapped form of 127.0.0.1, a loopback address${REFUSED_TAIL}`);
    await rebound.close();
    await toLoopback.close();
    expect(receiver.received.length).toBe(before);
  });
});

describe('webhook targets with WEBHOOK_PRIVATE_URLS=deny on pglite', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    t = await startTestApp('pglite', { webhookPollMs: 50, sandboxRetryScale: 0.001, webhookPrivateUrls: loadConfig({ WEBHOOK_PRIVATE_URLS: 'deny' }).webhookPrivateUrls });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('refuses a loopback target to the sandbox too, when created and when delivered', async () => {
    const sandbox = restClient(t.baseUrl, t.business.test_secret_key);
    const res = await sandbox.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['*'] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      type: 'validation_error',
      code: 'url_not_allowed',
      param: 'url',
      message: 'Invalid url: 127.0.0.1 is a loopback address; webhook endpoints must be reachable on the public internet.',
    });
    expect((await sandbox.get('/v1/developers/webhooks')).body.data).toEqual([]);

    const endpoint = await insertEndpoint(t, false, receiver.url, ['rental.started']);
    const sent = await sandbox.post(`/v1/test/webhooks/${endpoint.id}/send`, { type: 'rental.started' });
    expect(sent.status).toBe(200);
    // Sandbox retries run on the scaled schedule (SANDBOX_RETRY_SCALE): every attempt is refused alike.
    const attempts = await deliveriesOf(sandbox, endpoint.id);
    expect(attempts.at(-1)).toMatchObject({ attempt: 1, response_status: null });
    for (const a of attempts) expect(a).toMatchObject({ response_status: null, error: `request failed: webhook target refused: 127.0.0.1 is a loopback address${REFUSED_TAIL}` });
    expect(receiver.received).toEqual([]);
  });
});

/**
 * A test-only self-signed certificate for 127.0.0.1 (EC P-256, valid until 2126), so a live
 * endpoint (https only) can point at a receiver on loopback.
 */
const TEST_TLS = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgOh73KA89hz6MgEj9
hFbVIzxIRoZ8nbtp7SXMeXk6jtWhRANCAAQiqc2eoTC4ZjRnADBXS3cxe3ART9PP
d2f6lnS8bpqHNkXQ56X5TWjAdH3+qv4E/Q1tGXDqjqL36ccY3zvgay3L
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBmjCCAUGgAwIBAgIUchJAwm3kjW7NFEBBk/FhdQWCtSAwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMzExMTA0NloYDzIxMjYxMDMw
MTExMDQ2WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQiqc2eoTC4ZjRnADBXS3cxe3ART9PPd2f6lnS8bpqHNkXQ56X5TWjA
dH3+qv4E/Q1tGXDqjqL36ccY3zvgay3Lo28wbTAdBgNVHQ4EFgQUhLH791FVyylz
uqY/JdIZ4ARJe78wHwYDVR0jBBgwFoAUhLH791FVyylzuqY/JdIZ4ARJe78wDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDRwAwRAIgW9OYDyGs1Ev/VWZSfteZ3cu+6flopCl4hbMs/4CcVrsCIEKE
zL0uoH09jdf21itNNX846ZUbvtyzcRWQWarb87Ae
-----END CERTIFICATE-----
`,
};

async function startHttpsReceiver() {
  const received: Received[] = [];
  const server = createHttpsServer(TEST_TLS, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body, json: JSON.parse(body), at: Date.now() });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('webhook targets with WEBHOOK_PRIVATE_URLS=allow on pglite', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
  const rejectUnauthorized = process.env.NODE_TLS_REJECT_UNAUTHORIZED;

  beforeAll(async () => {
    t = await startTestApp('pglite', { webhookPollMs: 50, webhookPrivateUrls: 'allow' });
    receiver = await startHttpsReceiver();
    // The worker must accept the self-signed certificate above (this test process only).
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  });
  afterAll(async () => {
    if (rejectUnauthorized === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = rejectUnauthorized;
    await receiver?.close();
    await t?.close();
  });

  it('a live endpoint on a loopback receiver is created and receives a delivery', async () => {
    const live = restClient(t.baseUrl, t.business.live_secret_key);
    const endpoint = await live.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['booking.created'] });
    expect(endpoint.status).toBe(201);
    const booking = await createBooking(live, (await createVehicle(live)).id);
    await vi.waitFor(() => expect(receiver.received.some((r) => r.json?.data?.object?.id === booking.id)).toBe(true), { timeout: 20_000, interval: 50 });
    const delivered = receiver.received.find((r) => r.json?.data?.object?.id === booking.id)!;
    expect(delivered.json).toMatchObject({ type: 'booking.created', livemode: true });
    const [attempt] = await deliveriesOf(live, endpoint.body.id);
    expect(attempt).toMatchObject({ attempt: 1, response_status: 204, error: null });
  });
});
