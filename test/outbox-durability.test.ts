// The outbox across real process boundaries (PostgreSQL only): a server killed between the
// commit of an event and its delivery, and two `npm run worker` processes sharing one queue.
// the contract, "Events and webhooks": none lost across a crash; a 2xx answer is delivered.
import { tenantDbFactory } from '../src/db/tenant-db.ts';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { recordEvent } from '../src/domain/events/event.service.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { newEndpointSecret } from '../src/domain/webhooks/signing.ts';
import { restClient } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { spawnServer, spawnTs, type Child } from './support/processes.ts';
import { startReceiver } from './support/receiver.ts';

/** Poll `check` until it holds, or fail with `describe()` after `timeoutMs`. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number, describe: () => Promise<string> | string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${await describe()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A fresh migrated PostgreSQL database with one business, and a Prisma client on it. */
async function freshDatabase() {
  const pg = await createTestPostgresDatabase();
  const db = await openDatabase({ databaseUrl: pg.url });
  const business = await createBusiness(db.prisma, { name: 'Durable Rentals' });
  return { pg, db, business };
}

async function messageStates(db: Database, businessId: string) {
  const rows = await db.prisma.webhookMessage.groupBy({ by: ['state'], where: { businessId }, _count: { _all: true } });
  return Object.fromEntries(rows.map((r) => [r.state, r._count._all])) as Record<string, number>;
}

describe('outbox durability: server killed (SIGKILL) between commit and delivery', () => {
  let pg: Awaited<ReturnType<typeof createTestPostgresDatabase>>;
  let db: Database;
  let business: CreatedBusiness;
  const children: Child[] = [];

  beforeAll(async () => {
    ({ pg, db, business } = await freshDatabase());
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop('SIGKILL')));
    await db?.close();
    await pg?.drop();
  });

  it('The process killed (SIGKILL) between commit and delivery: after restart every event is delivered.', async () => {
    const env = { DATABASE_URL: pg.url, WEBHOOK_POLL_MS: '100', WEBHOOK_LEASE_MS: '2000', RATE_LIMIT_TEST: '100000' };
    let first: Awaited<ReturnType<typeof spawnServer>> | undefined;
    // The first request never gets an answer: the process sending it is killed as it arrives,
    // before it can record the attempt. Every later request is answered 204.
    const receiver = await startReceiver((n) => {
      if (n > 0) return 204;
      first?.process.kill('SIGKILL');
      return new Promise<number>(() => {});
    });
    try {
      first = await spawnServer(env);
      children.push(first);
      const api = restClient(first.baseUrl, business.test_secret_key);
      const vehicle = await createVehicle(api); // no event: the endpoint does not exist yet
      const endpoint = await api.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['*'] });
      expect(endpoint.status).toBe(201);

      // Several bookings at once; the server dies under some of them.
      const attempts = await Promise.allSettled(Array.from({ length: 8 }, () => createBooking(api, vehicle.id)));
      await receiver.waitFor((all) => all.length >= 1);
      await first.stop(); // already killed: waits for the exit
      expect(first.process.signalCode).toBe('SIGKILL');

      // What the crash left behind: committed events, not all of them delivered.
      const created = attempts.filter((a) => a.status === 'fulfilled').map((a) => (a as PromiseFulfilledResult<{ id: string }>).value.id);
      const events = await db.prisma.event.findMany({ where: { businessId: business.business_id }, select: { id: true, bookingId: true } });
      const before = await messageStates(db, business.business_id);
      expect(events.length).toBeGreaterThan(0);
      // Every booking the API confirmed has its event (the change and its event commit together).
      for (const id of created) expect(events.some((e) => e.bookingId === id)).toBe(true);
      expect(await db.prisma.webhookMessage.count({ where: { businessId: business.business_id } })).toBe(events.length);
      expect(before.pending ?? 0).toBeGreaterThan(0);
      expect(before.delivered ?? 0).toBeLessThan(events.length);
      const hung = receiver.received[0].headers['webhook-id'] as string;
      expect(events.map((e) => e.id)).toContain(hung);
      // Its message stays claimed (leased) by the dead process until the lease runs out.
      const lease = await db.prisma.webhookMessage.findFirstOrThrow({ where: { eventId: hung } });
      expect(lease).toMatchObject({ state: 'pending', attempts: 0 });
      console.log(`at the kill: ${events.length} events committed (${created.length} bookings confirmed), messages ${JSON.stringify(before)}`);

      // A new process on the same database finds the undelivered messages, including the one
      // whose attempt was in flight once its lease has run out.
      const second = await spawnServer(env);
      children.push(second);
      const ids = new Set(events.map((e) => e.id));
      const answered = () => new Set(receiver.received.slice(1).map((r) => r.headers['webhook-id'] as string));
      await receiver.waitFor(() => [...ids].every((id) => answered().has(id)), 30_000);
      await eventually(
        async () => (await messageStates(db, business.business_id)).delivered === events.length,
        10_000,
        async () => JSON.stringify(await messageStates(db, business.business_id)),
      );
      // Nothing else was created meanwhile, and nothing arrived that is not one of these events.
      expect(await db.prisma.event.count({ where: { businessId: business.business_id } })).toBe(events.length);
      expect([...answered()].sort()).toEqual([...ids].sort());
      // The in-flight one came again with the same webhook-id, no sooner than its lease allowed.
      const again = receiver.received.slice(1).find((r) => r.headers['webhook-id'] === hung)!;
      expect(again.at).toBeGreaterThanOrEqual(lease.nextAttemptAt.getTime());
      const hungDeliveries = await db.prisma.webhookDelivery.findMany({ where: { eventId: hung } });
      expect(hungDeliveries.map((d) => [d.attempt, d.responseStatus])).toEqual([[1, 204]]);
      await second.stop();
    } finally {
      await receiver.close();
    }
  });
});

// ------------------------------------------------------------------ two workers

interface Hit {
  id: string;
  port: number;
  at: number;
}

/** A receiver that answers 204 after `delayMs`, noting each request's webhook-id and source port. */
async function countingReceiver(delayMs: number) {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push({ id: String(req.headers['webhook-id']), port: req.socket.remotePort!, at: Date.now() });
      setTimeout(() => {
        res.statusCode = 204;
        res.end();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    hits,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * Which process owns each open loopback connection to `remotePort` (Linux /proc): the local
 * port of a worker's socket is the source port the receiver sees. Empty where /proc is absent.
 */
async function socketOwners(pids: number[], remotePort: number): Promise<Map<number, number>> {
  const byInode = new Map<string, number>();
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) byInode.set(m[1], pid);
    }
  }
  const owners = new Map<number, number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const local = Number.parseInt(f[1].split(':').pop()!, 16);
      const remote = Number.parseInt(f[2].split(':').pop()!, 16);
      const pid = byInode.get(f[9]);
      if (remote === remotePort && pid !== undefined) owners.set(local, pid);
    }
  }
  return owners;
}

describe('outbox durability: two worker processes on one PostgreSQL', () => {
  let pg: Awaited<ReturnType<typeof createTestPostgresDatabase>>;
  let db: Database;
  let business: CreatedBusiness;
  const children: Child[] = [];

  beforeAll(async () => {
    ({ pg, db, business } = await freshDatabase());
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop('SIGKILL')));
    await db?.close();
    await pg?.drop();
  });

  it('Two worker processes against one PostgreSQL: 500 events, each attempt delivered once.', async () => {
    const TOTAL = 500;
    // A little slow to answer, as real receivers are: one worker alone (one attempt at a time
    // to this endpoint, to keep its events in order) would need ten seconds, so the second one,
    // starting at the same time, gets its share.
    const receiver = await countingReceiver(20);
    try {
      const endpoint = await db.prisma.webhookEndpoint.create({
        data: { id: newId('webhookEndpoint'), businessId: business.business_id, livemode: false, url: receiver.url, enabledEvents: ['*'], secret: newEndpointSecret() },
      });
      const origin = { businessId: business.business_id, livemode: false, requestId: null, idempotencyKey: null };
      const scoped = tenantDbFactory(db.prisma)({ businessId: business.business_id, livemode: false });
      for (let t = 0; t < 5; t++) {
        await scoped.$transaction(
          async (tx) => {
            for (let i = t * 100; i < (t + 1) * 100; i++) await recordEvent(tx, origin, { type: 'booking.created', object: { object: 'test', n: i } });
          },
          { timeout: 60_000 },
        );
      }
      expect(await db.prisma.webhookMessage.count({ where: { endpointId: endpoint.id, state: 'pending' } })).toBe(TOTAL);

      // LOG_LEVEL info: the worker's start line is what the spawn waits for.
      const env = { DATABASE_URL: pg.url, WEBHOOK_POLL_MS: '50', LOG_LEVEL: 'info' };
      const workers = await Promise.allSettled([spawnTs('src/worker.ts', env, /webhook worker/), spawnTs('src/worker.ts', env, /webhook worker/)]);
      for (const w of workers) if (w.status === 'fulfilled') children.push(w.value);
      for (const w of workers) if (w.status === 'rejected') throw w.reason;
      const pids = children.map((c) => c.process.pid!);
      // Map source ports to worker processes while the (kept-alive) connections are open.
      const owners = new Map<number, number>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          for (const [port, pid] of await socketOwners(pids, receiver.port)) owners.set(port, pid);
          await new Promise((r) => setTimeout(r, 25));
        }
      })();

      await eventually(async () => receiver.hits.length >= TOTAL, 60_000, () => `${receiver.hits.length} requests`);
      await eventually(
        async () => (await db.prisma.webhookMessage.count({ where: { endpointId: endpoint.id, state: 'delivered' } })) === TOTAL,
        20_000,
        async () => JSON.stringify(await messageStates(db, business.business_id)),
      );
      sampling = false;
      await sampler;
      // Time for any duplicate to show up (with the default 60 s lease none should ever come).
      await new Promise((r) => setTimeout(r, 500));

      const ids = receiver.hits.map((h) => h.id);
      expect(receiver.hits).toHaveLength(TOTAL);
      expect(new Set(ids).size).toBe(TOTAL);
      const eventIds = (await db.prisma.event.findMany({ where: { businessId: business.business_id }, select: { id: true } })).map((e) => e.id);
      expect([...ids].sort()).toEqual(eventIds.sort());
      const deliveries = await db.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
      expect(deliveries).toHaveLength(TOTAL);
      expect(deliveries.every((d) => d.attempt === 1 && d.responseStatus === 204)).toBe(true);
      expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(TOTAL);
      expect(await db.prisma.webhookMessage.count({ where: { endpointId: endpoint.id, attempts: 1, state: 'delivered' } })).toBe(TOTAL);

      // Both processes delivered: attribute each request to a worker by its source port.
      const perWorker = new Map<number | 'unknown', number>();
      for (const h of receiver.hits) {
        const pid = owners.get(h.port) ?? 'unknown';
        perWorker.set(pid, (perWorker.get(pid) ?? 0) + 1);
      }
      console.log(`deliveries per worker: ${JSON.stringify(Object.fromEntries(perWorker))} (pids ${pids.join(', ')})`);
      if (owners.size > 0) for (const pid of pids) expect(perWorker.get(pid) ?? 0).toBeGreaterThan(0);
      await Promise.all(children.map((c) => c.stop()));
      for (const c of children) expect(c.process.exitCode).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});

// ------------------------------------------------------------------ a silent destination

describe('outbox durability: a destination that never answers', () => {
  let pg: Awaited<ReturnType<typeof createTestPostgresDatabase>>;
  let db: Database;
  let business: CreatedBusiness;
  const children: Child[] = [];

  beforeAll(async () => {
    ({ pg, db, business } = await freshDatabase());
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop('SIGKILL')));
    await db?.close();
    await pg?.drop();
  });

  it('holds one lane of the worker, not the deliveries of other businesses while its answer is awaited', async () => {
    // The events here are recorded by the test with placeholder objects, not made by the service.
    const silent = await startReceiver(() => new Promise<number>(() => {}), { syntheticEvents: true });
    const healthy = await startReceiver(undefined, { syntheticEvents: true });
    try {
      const other = await createBusiness(db.prisma, { name: 'Healthy Rentals' });
      for (const [owner, url] of [[business, silent.url], [other, healthy.url]] as const) {
        await db.prisma.webhookEndpoint.create({
          data: { id: newId('webhookEndpoint'), businessId: owner.business_id, livemode: false, url, enabledEvents: ['*'], secret: newEndpointSecret() },
        });
      }
      const worker = await spawnTs('src/worker.ts', { DATABASE_URL: pg.url, WEBHOOK_POLL_MS: '100', WEBHOOK_TIMEOUT_MS: '10000', LOG_LEVEL: 'info' }, /webhook worker/);
      children.push(worker);
      const origin = (b: CreatedBusiness) => ({ businessId: b.business_id, livemode: false, requestId: null, idempotencyKey: null });
      const tenantDb = tenantDbFactory(db.prisma);
      const record = (b: CreatedBusiness, n: number) => tenantDb(origin(b)).$transaction((tx) => recordEvent(tx, origin(b), { type: 'booking.created', object: { object: 'test', n } }));

      const stuck = await record(business, 0);
      await silent.waitFor((all) => all.length === 1);
      // Events of another business keep flowing, one at a time, while that answer is awaited.
      const latencies: number[] = [];
      for (let n = 1; n <= 5; n++) {
        const event = await record(other, n);
        await healthy.waitFor((all) => all.some((r) => r.headers['webhook-id'] === event.id), 8_000);
        latencies.push(healthy.received.find((r) => r.headers['webhook-id'] === event.id)!.at - event.createdAt.getTime());
      }
      // All of it before the silent destination's 10 s ran out: its attempt is still unrecorded.
      const message = await db.prisma.webhookMessage.findFirstOrThrow({ where: { eventId: stuck.id } });
      expect(message).toMatchObject({ state: 'pending', attempts: 0 });
      expect(silent.received).toHaveLength(1);
      expect(Math.max(...latencies)).toBeLessThan(5_000);
      console.log(`deliveries beside a silent destination: ${latencies.map((l) => `${l} ms`).join(', ')}`);

      // Its attempt fails as soon as the connection drops, and the worker stops cleanly.
      await silent.close();
      await eventually(
        async () => (await db.prisma.webhookDelivery.count({ where: { eventId: stuck.id } })) === 1,
        10_000,
        () => 'the silent attempt was not recorded',
      );
      await worker.stop();
      expect(worker.process.exitCode).toBe(0);
    } finally {
      await silent.close();
      await healthy.close();
    }
  });
});
