// Logs and metrics as an operator sees them: the real server as a process with LOG_LEVEL=info,
// its standard output read line by line as JSON, and GET /metrics parsed from Prometheus' text
// format after real traffic (REST on both paths, GraphQL, a failure, a WebSocket subscriber, an
// SSE subscriber, a failing webhook endpoint).
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Counter, Histogram, Registry } from 'prom-client';
import WebSocket from 'ws';
import { openDatabase, type Database } from '../src/db/database.ts';
import { createMetrics } from '../src/metrics.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { restClient, startTestApp } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { spawnServer } from './support/processes.ts';
import { startReceiver } from './support/receiver.ts';

type Server = Awaited<ReturnType<typeof spawnServer>>;
type Sample = { name: string; labels: Record<string, string>; value: number };

/** Prometheus' text exposition format: one sample per line that is not a comment. */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(probe: () => Promise<T | false | null | undefined> | T | false | null | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The JSON lines of a server's output (the service logs nothing else once started). */
const logLines = (server: Server) =>
  server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('logs and metrics of a server process', () => {
  let server: Server;
  let db: Database;
  let business: CreatedBusiness;
  let drop: () => Promise<void>;
  const scrape = async () => {
    const res = await fetch(`${server.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(await res.text());
  };

  beforeAll(async () => {
    const pg = await createTestPostgresDatabase();
    drop = pg.drop;
    db = await openDatabase({ databaseUrl: pg.url });
    business = await createBusiness(db.prisma, { name: 'Logged Rentals' });
    server = await spawnServer({ DATABASE_URL: pg.url, LOG_LEVEL: 'info', WEBHOOK_POLL_MS: '100' });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.close();
    await drop?.();
  });

  it('logs one JSON line per request on both REST paths and GraphQL: request id, key id, route template, status, duration; never the key', async () => {
    const key = business.test_secret_key;
    const api = restClient(server.baseUrl, key);
    // Given a GET served by the Node server's own path, a POST, a GraphQL query and a request that fails
    const read = await api.get('/v1/vehicles');
    const created = await api.post('/v1/test/bookings', {});
    const gql = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query FleetPage { vehicles(first: 1) { edges { node { id } } } }' }),
    });
    const missing = await api.get('/v1/bookings/bk_0000000000000000000000000');
    const unauthenticated = await restClient(server.baseUrl, 'svc_test_sk_not_a_real_key').get('/v1/vehicles');
    expect([read.status, created.status, gql.status, missing.status, unauthenticated.status]).toEqual([200, 201, 200, 404, 401]);

    // Then each has its line, under the request id it answered with
    const ids = [read.headers.get('request-id'), created.headers.get('request-id'), gql.headers.get('request-id'), missing.headers.get('request-id'), unauthenticated.headers.get('request-id')];
    expect(missing.body.error.request_id).toBe(ids[3]);
    const lines = await until(() => {
      const byId = new Map(logLines(server).filter((l) => l.msg === 'request').map((l) => [l.request_id, l]));
      return ids.every((id) => byId.has(id)) && ids.map((id) => byId.get(id)!);
    }, 'the access log lines');
    const keyId = (await db.prisma.apiKey.findFirst({ where: { businessId: business.business_id, livemode: false, kind: 'secret' } }))!.id;
    const common = { level: 'info', key_id: keyId, business_id: business.business_id, livemode: false };
    expect(lines[0]).toMatchObject({ ...common, method: 'GET', route: 'GET /v1/vehicles', status: 200 });
    expect(lines[1]).toMatchObject({ ...common, method: 'POST', route: 'POST /v1/test/bookings', status: 201 });
    expect(lines[2]).toMatchObject({ ...common, method: 'POST', route: 'POST /graphql', operation: 'query FleetPage', status: 200 });
    expect(lines[3]).toMatchObject({ ...common, route: 'GET /v1/bookings/{booking_id}', status: 404 });
    expect(lines[4]).toMatchObject({ route: 'GET /v1/vehicles', status: 401 });
    expect(lines[4].key_id).toBeUndefined();
    for (const line of lines) {
      expect(typeof line.duration_ms).toBe('number');
      expect(line.duration_ms as number).toBeGreaterThanOrEqual(0);
      expect(typeof line.time).toBe('string');
    }
    // No secret anywhere in what the process printed
    expect(server.output()).not.toContain(key);
    expect(server.output()).not.toContain('svc_test_sk_not_a_real_key');
    expect(server.output()).not.toMatch(/svc_(test|live)_sk_/);
  });

  it('counts requests and their latency per route template, never per id', async () => {
    const api = restClient(server.baseUrl, business.test_secret_key);
    const before = await scrape();
    const booking = (await api.post('/v1/test/bookings', {})).body;
    expect((await api.get(`/v1/bookings/${booking.id}`)).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}`)).status).toBe(200);
    expect((await api.get('/v1/vehicles')).status).toBe(200);
    // The ops screen's paths are counted under their own templates, its asset names replaced.
    expect((await fetch(`${server.baseUrl}/ops/session`)).status).toBe(401);
    expect((await fetch(`${server.baseUrl}/ops/assets/index-0123abcd.js`)).status).toBe(404);
    // A signed link under its template, its id replaced; a path nothing takes, unmatched.
    expect((await fetch(`${server.baseUrl}/v1/files/file_0123456789abcdef/download?signature=forged`)).status).toBe(403);
    expect((await fetch(`${server.baseUrl}/v1/nothing/bk_0123456789abcdef`)).status).toBe(404);
    // A scraper that adds a query string gets the same page.
    expect((await fetch(`${server.baseUrl}/metrics?format=prometheus%zz`)).status).toBe(200);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(moved('http_requests_total', { method: 'GET', route: '/v1/bookings/{booking_id}', status: '200' })).toBe(2);
    expect(moved('http_requests_total', { method: 'POST', route: '/v1/test/bookings', status: '201' })).toBe(1);
    expect(moved('http_requests_total', { method: 'GET', route: '/v1/vehicles', status: '200' })).toBe(1);
    expect(moved('http_requests_total', { method: 'GET', route: '/ops/session', status: '401' })).toBe(1);
    expect(moved('http_requests_total', { method: 'GET', route: '/ops/assets', status: '404' })).toBe(1);
    expect(moved('http_requests_total', { method: 'GET', route: '/v1/files/{id}/download', status: '403' })).toBe(1);
    expect(moved('http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(moved('http_request_duration_seconds_count', { method: 'GET', route: '/v1/bookings/{booking_id}', status: '200' })).toBe(2);
    const buckets = after.filter((s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.route === '/v1/bookings/{booking_id}' && s.labels.status === '200');
    expect(buckets.length).toBeGreaterThan(5);
    expect(buckets.find((b) => b.labels.le === '+Inf')!.value).toBe(value(after, 'http_request_duration_seconds_count', { route: '/v1/bookings/{booking_id}', status: '200' }));
    // No label carries an id
    expect(after.some((s) => Object.values(s.labels).some((v) => /(bk|req|biz|key)_[0-9a-z]{10,}/.test(v)))).toBe(false);
  });

  it('shows the webhook queue: a failing endpoint leaves its messages pending, counted as retrying', async () => {
    const receiver = await startReceiver(() => 500);
    try {
      const api = restClient(server.baseUrl, business.test_secret_key);
      const endpoint = await api.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['booking.created'] });
      expect(endpoint.status).toBe(201);
      await api.post('/v1/test/bookings', {});
      await receiver.waitFor((all) => all.length >= 1);
      const samples = await until(async () => {
        const s = await scrape();
        return value(s, 'webhook_delivery_attempts_total', { outcome: 'retrying' }) >= 1 && s;
      }, 'a retrying attempt counted');
      expect(value(samples, 'webhook_queue_pending', { livemode: 'false' })).toBeGreaterThanOrEqual(1);
      expect(samples.some((s) => s.name === 'webhook_queue_due')).toBe(true);
      expect(value(samples, 'webhook_delivery_attempts_total', { outcome: 'delivered' })).toBe(0);
      await api.post(`/v1/developers/webhooks/${endpoint.body.id}`, { enabled: false });
    } finally {
      await receiver.close();
    }
  });

  it('counts open subscriptions: a graphql-ws subscriber 1 -> 0, logged as it connects and closes; SSE too', async () => {
    const gauge = async (transport: string) => value(await scrape(), 'graphql_subscriptions_open', { transport });
    expect(await gauge('websocket')).toBe(0);
    const client = createClient({ url: `${server.baseUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${business.test_secret_key}` }, retryAttempts: 0, lazy: false });
    const unsubscribe = client.subscribe({ query: 'subscription { events { id type } }' }, { next: () => {}, error: () => {}, complete: () => {} });
    await until(async () => (await gauge('websocket')) === 1, 'the WebSocket subscription counted');
    unsubscribe();
    await client.dispose();
    await until(async () => (await gauge('websocket')) === 0, 'the WebSocket subscription gone');
    const ws = await until(() => {
      const lines = logLines(server);
      const opened = lines.find((l) => l.msg === 'websocket opened');
      const closed = lines.find((l) => l.msg === 'websocket closed' && l.connection_id === opened?.connection_id);
      return opened && closed && { opened, closed };
    }, 'the WebSocket log lines');
    expect(ws.opened).toMatchObject({ business_id: business.business_id, livemode: false });
    expect(ws.opened.key_id).toMatch(/^key_/);
    expect(typeof ws.closed.code).toBe('number');

    // SSE: a subscription over HTTP, open while its response streams
    const abort = new AbortController();
    const res = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${business.test_secret_key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { events { id } }' }),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    await until(async () => (await gauge('sse')) === 1, 'the SSE subscription counted');
    abort.abort();
    await res.body?.cancel().catch(() => {});
    await until(async () => (await gauge('sse')) === 0, 'the SSE subscription gone');
  });
});

describe('who may read /metrics', () => {
  it('without METRICS_TOKEN: loopback callers, not through a proxy; with it: its bearer only; never under /v1', async () => {
    const open = await startTestApp('pglite');
    try {
      expect((await fetch(`${open.baseUrl}/metrics`)).status).toBe(200);
      const proxied = await fetch(`${open.baseUrl}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(proxied.status).toBe(403);
      expect((await proxied.json()).error).toMatchObject({ code: 'metrics_not_local', request_id: proxied.headers.get('request-id') });
      expect((await fetch(`${open.baseUrl}/v1/metrics`, { headers: { authorization: `Bearer ${open.business.test_secret_key}` } })).status).toBe(404);
      const post = await fetch(`${open.baseUrl}/metrics`, { method: 'POST' });
      expect(post.status).toBe(405);
    } finally {
      await open.close();
    }
    const guarded = await startTestApp('pglite', { metricsToken: 's3cret-metrics' });
    try {
      const none = await fetch(`${guarded.baseUrl}/metrics`);
      expect(none.status).toBe(401);
      expect((await none.json()).error.code).toBe('metrics_token_invalid');
      expect((await fetch(`${guarded.baseUrl}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      // An API key is not the token
      expect((await fetch(`${guarded.baseUrl}/metrics`, { headers: { authorization: `Bearer ${guarded.business.test_secret_key}` } })).status).toBe(401);
      const ok = await fetch(`${guarded.baseUrl}/metrics`, { headers: { authorization: 'Bearer s3cret-metrics', 'x-forwarded-for': '203.0.113.7' } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('http_requests_total');
    } finally {
      await guarded.close();
    }
  });
});

describe('request metrics', () => {
  it("are written as prom-client's own Counter and Histogram write the same requests", async () => {
    const reference = new Registry();
    const labelNames = ['method', 'route', 'status'];
    const count = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by method, route template and status.', labelNames, registers: [reference] });
    const time = new Histogram({ name: 'http_request_duration_seconds', help: 'Time from the request to the end of its answer, by method, route template and status.', labelNames, buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [reference] });
    const metrics = createMetrics();
    const requests: [string, string, number, number][] = [['GET', '/v1/vehicles/{id}', 200, 0.0004], ['GET', '/v1/vehicles/{id}', 200, 0.003], ['POST', '/v1/bookings', 201, 0.02], ['GET', '/v1/vehicles/{id}', 404, 12], ['GET', 'unmatched', 404, 0.001], ['GET', 'a"b\\c', 200, 0.25]];
    for (const [method, route, status, seconds] of requests) {
      count.labels({ method, route, status: String(status) }).inc();
      time.labels({ method, route, status: String(status) }).observe(seconds);
      metrics.request(method, route, status, seconds);
    }
    const requestLines = (text: string) => text.split('\n').filter((line) => line.includes('http_request'));
    const ours = requestLines(await metrics.registry.metrics());
    expect(ours.length).toBeGreaterThan(60);
    expect(ours).toEqual(requestLines(await reference.metrics()));
  });
});
