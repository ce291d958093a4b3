// Redis going away and coming back, as a client of two real API processes sees it (real
// processes, real HTTP, a real graphql-ws client). Our own redis-server on a free port is
// killed under load and started again; the shared one on 6379 is never touched.
import { createClient, type Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openDatabase } from '../src/db/database.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { restClient } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { spawnServer } from './support/processes.ts';
import { freePort, startTestRedis, type TestRedis } from './support/redis.ts';

const LIMIT = 20;

const EVENTS = /* GraphQL */ `
  subscription Events($types: [String!]) {
    events(types: $types) { id type data }
  }`;

type Server = Awaited<ReturnType<typeof spawnServer>>;
type Seen = { id: string; type: string; data: { object: { id: string } } };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const clients: Client[] = [];

/** A graphql-ws subscriber to our booking.created events, and what it received. */
async function subscriber(server: Server, key: string) {
  let connected = false;
  const client = createClient({ url: `${server.baseUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${key}` }, retryAttempts: 0 });
  client.on('connected', () => (connected = true));
  clients.push(client);
  const events: Seen[] = [];
  const errors: unknown[] = [];
  client.subscribe<{ events: Seen }>({ query: EVENTS, variables: { types: ['booking.created'] } }, {
    next: (r) => r.data && events.push(r.data.events),
    error: (e) => errors.push(e),
    complete: () => {},
  });
  await until(() => connected, 'the graphql-ws connection');
  await sleep(500); // no acknowledgement of a subscription: let the server listen on the topic
  return {
    errors,
    /** How many times the booking's booking.created arrived (once, when it has). */
    copiesOf: (bookingId: string) => events.filter((e) => e.data.object.id === bookingId).length,
  };
}

/** A booking made through this server's REST API: its booking.created follows. */
async function causeEvent(server: Server, key: string): Promise<string> {
  const res = await restClient(server.baseUrl, key).post('/v1/test/bookings', {});
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Lines of a server's output about Redis being unavailable, and stack-trace lines. */
const unavailableLines = (s: Server) => s.output().split('\n').filter((l) => /unavailable/i.test(l));
/** The messages of a server's JSON log lines (src/log.ts). */
const logMessages = (s: Server) => s.output().split('\n').filter((l) => l.startsWith('{')).map((l) => String(JSON.parse(l).msg));
const backLines = (s: Server) => logMessages(s).filter((m) => /^Redis \S+ is back/.test(m));
const stackLines = (s: Server) => s.output().split('\n').filter((l) => /^\s+at\s|\[ioredis\]|Unhandled/.test(l));

/** GET /v1/vehicles in a loop, each answer recorded as status and time, until told to stop. */
function load(server: Server, key: string, calls: { status: number; at: number; ms: number; error?: string }[], stop: () => boolean) {
  return (async () => {
    while (!stop()) {
      const started = Date.now();
      try {
        const res = await fetch(`${server.baseUrl}/v1/vehicles?limit=3`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        calls.push({ status: res.status, at: started, ms: Date.now() - started });
      } catch (err) {
        calls.push({ status: 0, at: started, ms: Date.now() - started, error: String(err) });
      }
      await sleep(100); // ~8 per second: each client stays under its key's limit
    }
  })();
}


describe('Redis unavailable: the API keeps answering and recovers by itself (postgres, two processes)', () => {
  let redis: TestRedis;
  let pg: Awaited<ReturnType<typeof createTestPostgresDatabase>>;
  let a: Server | undefined;
  let b: Server | undefined;
  let business: CreatedBusiness;
  let loadKeys: string[];
  let subscribedDuringOutage: Awaited<ReturnType<typeof subscriber>>;

  beforeAll(async () => {
    redis = await startTestRedis();
    pg = await createTestPostgresDatabase();
    const db = await openDatabase({ databaseUrl: pg.url }); // migrates
    business = await createBusiness(db.prisma, { name: 'Redis Fault Rentals' });
    // One key per load client, so each stays under its own limit and any 429 would be a bug.
    loadKeys = [];
    for (let i = 0; i < 4; i++) loadKeys.push((await createBusiness(db.prisma, { name: `Load ${i}` })).test_secret_key);
    await db.close();
    const env = { DATABASE_URL: pg.url, REDIS_URL: redis.url, WEBHOOK_WORKER: 'off', RATE_LIMIT_TEST: String(LIMIT) };
    [a, b] = await Promise.all([spawnServer(env), spawnServer(env)]);
  });
  afterAll(async () => {
    // The subscriber opened during the outage lives across the tests below it.
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
    await pg?.drop();
  });

  it('with Redis up, the limit is shared by both processes through Redis', async () => {
    // A burst well over the limit, half to each process, from one key
    const api = [restClient(a!.baseUrl, business.test_secret_key), restClient(b!.baseUrl, business.test_secret_key)];
    const answers = await Promise.all(Array.from({ length: 5 * LIMIT }, (_, i) => api[i % 2].get('/v1/vehicles?limit=1')));
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    expect(answers.some((r) => r.status === 429)).toBe(true);
    // Redis holds the windows (a key per window and API key)
    const probe = new Redis(redis.url);
    try {
      expect((await probe.keys('ratelimit:*')).length).toBeGreaterThan(0);
    } finally {
      probe.disconnect();
    }
    expect(unavailableLines(a!)).toEqual([]);
  });

  it('Redis killed under load: no 5xx, requests keep succeeding, the limit still holds per process', async () => {
    // Given four clients reading vehicles from both processes
    const calls: { status: number; at: number; ms: number; error?: string }[][] = [[], [], [], []];
    let stopping = false;
    const running = [a!, a!, b!, b!].map((server, i) => load(server, loadKeys[i], calls[i], () => stopping));
    await sleep(1_500);

    // When Redis is killed in the middle
    const killedAt = Date.now();
    await redis.stop('SIGKILL');
    await sleep(3_000);
    stopping = true;
    await Promise.all(running);

    // Then every answer is a 200 (no 5xx, no failed connection), before and after, promptly
    for (const mine of calls) {
      expect(mine.filter((c) => c.status !== 200)).toEqual([]);
      expect(mine.filter((c) => c.at < killedAt).length).toBeGreaterThan(3);
      expect(mine.filter((c) => c.at > killedAt + 500).length).toBeGreaterThan(5);
      expect(Math.max(...mine.filter((c) => c.at > killedAt).map((c) => c.ms))).toBeLessThan(2_000);
    }

    // And a burst well over the limit to one process still meets it there: 429 rate_limited
    const api = restClient(a!.baseUrl, business.test_secret_key);
    const burst = await Promise.all(Array.from({ length: 5 * LIMIT }, () => api.get('/v1/vehicles?limit=1')));
    expect(burst.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
    const limited = burst.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(burst.some((r) => r.status === 200)).toBe(true);
    for (const r of limited) {
      expect(r.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get('ratelimit-limit')).toBe(String(LIMIT));
    }
  });

  it('each process warns once that Redis is unavailable, naming host:port, without a stack', async () => {
    for (const server of [a!, b!]) {
      const [line] = await until(() => unavailableLines(server).length > 0 && unavailableLines(server), 'the warning');
      expect(line).toContain(`127.0.0.1:${redis.port}`);
      // A few more seconds of reconnection attempts and requests add nothing
      await sleep(1_000);
      expect(unavailableLines(server)).toHaveLength(1);
      expect(stackLines(server)).toEqual([]);
    }
  });

  it('while Redis is down, a subscriber on A receives the events of REST calls to A (and to B, read from PostgreSQL), once', async () => {
    subscribedDuringOutage = await subscriber(a!, business.test_secret_key);
    // Either process's relay may hand out an event; each reads what the other handed out.
    const onA = await causeEvent(a!, business.test_secret_key);
    const onB = await causeEvent(b!, business.test_secret_key);
    await until(() => subscribedDuringOutage.copiesOf(onA) > 0, 'booking.created on A while Redis is down');
    await until(() => subscribedDuringOutage.copiesOf(onB) > 0, 'booking.created on B while Redis is down');
    await sleep(1_500); // the relays read again: nothing comes twice
    expect(subscribedDuringOutage.copiesOf(onA)).toBe(1);
    expect(subscribedDuringOutage.copiesOf(onB)).toBe(1);
    expect(subscribedDuringOutage.errors).toEqual([]);
  });

  it('Redis back on the same port: both log recovery, and B’s events reach A’s subscriber (opened during the outage) through Redis again', async () => {
    // Given Redis started again
    await redis.restart();
    await until(() => backLines(a!).length > 0 && backLines(b!).length > 0, 'the recovery lines');
    expect(backLines(a!)).toHaveLength(1);
    expect(backLines(b!)).toHaveLength(1);
    expect(backLines(a!)[0]).toContain(`127.0.0.1:${redis.port}`);

    // ... and a listener on the business's topic, to see the events cross Redis
    const topic = `events:${business.business_id}:test`;
    const probe = new Redis(redis.url);
    const relayed: string[] = [];
    probe.on('message', (_channel: string, message: string) => relayed.push(JSON.parse(message).data.object.id));
    await probe.subscribe(topic);
    try {
      // When B makes a booking
      const fromB = await causeEvent(b!, business.test_secret_key);

      // Then its event goes through Redis and reaches the subscriber on A, once
      await until(() => relayed.includes(fromB), 'the event on Redis');
      await until(() => subscribedDuringOutage.copiesOf(fromB) > 0, 'booking.created from B on A');
      // ... and with Redis working, an event caused on A is not delivered twice there either
      const fromA = await causeEvent(a!, business.test_secret_key);
      await until(() => subscribedDuringOutage.copiesOf(fromA) > 0, 'booking.created from A on A');
      await until(() => relayed.includes(fromA), 'the event from A on Redis');
      await sleep(1_000);
      expect(subscribedDuringOutage.copiesOf(fromB)).toBe(1);
      expect(subscribedDuringOutage.copiesOf(fromA)).toBe(1);
    } finally {
      probe.disconnect();
    }
    // The limits are counted in Redis again
    const keys = new Redis(redis.url);
    try {
      await until(async () => {
        expect((await restClient(b!.baseUrl, business.test_secret_key).get('/v1/vehicles?limit=1')).status).toBe(200);
        return (await keys.keys('ratelimit:*')).length > 0;
      }, 'rate windows in Redis again', 5_000);
    } finally {
      keys.disconnect();
    }
    expect(unavailableLines(a!)).toHaveLength(1);
    expect(unavailableLines(b!)).toHaveLength(1);
    expect(stackLines(a!)).toEqual([]);
    expect(stackLines(b!)).toEqual([]);
  });

  it('starts with an unreachable REDIS_URL (or an invalid one): answers requests and warns once', async () => {
    const port = await freePort(); // nothing listens there
    const env = { DATABASE_URL: pg.url, WEBHOOK_WORKER: 'off', RATE_LIMIT_TEST: String(LIMIT) };
    const [server, invalid] = await Promise.all([
      spawnServer({ ...env, REDIS_URL: `redis://:s3cret@127.0.0.1:${port}` }),
      spawnServer({ ...env, REDIS_URL: 'localhost:no-port' }),
    ]);
    try {
      const onInvalid = restClient(invalid.baseUrl, business.test_secret_key);
      expect((await onInvalid.get('/v1/vehicles?limit=1')).status).toBe(200);
      expect(invalid.output().split('\n').filter((l) => /REDIS_URL/.test(l))).toHaveLength(1);
      expect(stackLines(invalid)).toEqual([]);

      const api = restClient(server.baseUrl, business.test_secret_key);
      for (let i = 0; i < 5; i++) expect((await api.get('/v1/vehicles?limit=1')).status).toBe(200);
      const [line] = await until(() => unavailableLines(server).length > 0 && unavailableLines(server), 'the warning');
      expect(line).toContain(`127.0.0.1:${port}`);
      expect(line).not.toContain('s3cret');
      await sleep(2_500); // reconnection attempts keep failing, quietly
      expect((await api.get('/v1/vehicles?limit=1')).status).toBe(200);
      expect(unavailableLines(server)).toHaveLength(1);
      expect(server.output()).not.toContain('s3cret');
      expect(stackLines(server)).toEqual([]);
    } finally {
      await Promise.all([server.stop(), invalid.stop()]);
    }
  });
});
