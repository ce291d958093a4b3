// PostgreSQL out of reach, or restarting under a request: the answer is 503
// database_unavailable with Retry-After in the envelope, never a 500 or a hang, and the same
// process serves again once the server is back (its pool reconnects by itself). On a cluster
// of the test's own (test/support/private-postgres.ts), never the shared server.
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { buildApp, type App } from '../src/server.ts';
import { graphqlClient, restClient } from './support/app.ts';
import { createVehicle, nextPeriod } from './support/fixtures.ts';
import { startPrivatePostgres, type PrivatePostgres } from './support/private-postgres.ts';
import { backendsWaitingOn } from './support/postgres.ts';

describe('PostgreSQL unreachable or restarting (a private cluster)', () => {
  let server: PrivatePostgres;
  let db: Database;
  let app: App;
  let business: CreatedBusiness;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  let baseUrl: string;
  beforeAll(async () => {
    server = await startPrivatePostgres();
    db = await openDatabase({ databaseUrl: server.url });
    app = await buildApp({ db, config: { ...loadConfig({}), holdSweepMs: 0, rateLimitLive: 100_000, rateLimitTest: 100_000 } });
    const listening = await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    business = await createBusiness(db.prisma, { name: 'Outage Rentals' });
    api = restClient(baseUrl, business.test_secret_key);
    gql = graphqlClient(baseUrl, business.test_secret_key);
    // The document every REST answer is checked against, read while the database is up.
    await api.get('/v1/vehicles');
  });
  afterAll(async () => {
    await app?.close({ graceMs: 0 });
    await db?.close();
    await server?.destroy();
  });

  const unavailable = (res: { status: number; body: any; headers: Headers }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'internal_error', code: 'database_unavailable', request_id: res.headers.get('request-id') });
    expect(res.headers.get('retry-after')).toBe('1');
  };

  it('stopped: reads, writes and GraphQL answer 503 database_unavailable with Retry-After; started again, the same process serves', async () => {
    const vehicle = await createVehicle(api);
    const booking = { vehicle_id: vehicle.id, ...nextPeriod(), customer: { name: 'Ada Lovelace' } };
    await server.stop();
    try {
      unavailable(await api.get(`/v1/vehicles/${vehicle.id}`)); // a read by id: the scope's own SQL
      unavailable(await api.get('/v1/vehicles')); // a list: Prisma
      unavailable(await api.post('/v1/bookings', booking, { 'Idempotency-Key': 'outage-booking' }));
      const graphql = await gql('query ($id: ID!) { vehicle(id: $id) { id } }', { id: vehicle.id });
      expect(graphql.status).not.toBe(500);
      expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'database_unavailable', type: 'internal_error' });
      expect((await fetch(`${baseUrl}/health/ready`)).status).toBe(503);
    } finally {
      await server.start();
    }

    expect((await api.get(`/v1/vehicles/${vehicle.id}`)).status).toBe(200);
    // A 503 is not remembered under its Idempotency-Key: the retry books.
    const retried = await api.post('/v1/bookings', booking, { 'Idempotency-Key': 'outage-booking' });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('stopped for longer than a reconnect attempt: once it is back the service listens for new events again, by itself', async () => {
    // Listening (again, after the restarts of the tests before): the event relay and the webhook worker.
    await until(async () => (await listeningSessions(server.url)) > 0, 20_000);
    await sleep(1_500);
    const before = await listeningSessions(server.url);
    await server.stop();
    await sleep(2_500); // the service's first attempts to listen again find nothing there
    await server.start();
    await until(async () => (await listeningSessions(server.url)) === before, 20_000);
  });

  it('restarted while a booking create waits in its transaction: 503 database_unavailable, nothing of it committed; then the same create succeeds', async () => {
    const vehicle = await createVehicle(api);
    const booking = { vehicle_id: vehicle.id, ...nextPeriod(), customer: { name: 'Grace Hopper' } };
    // Holding the vehicle's row keeps the create inside its transaction (the insert's trigger locks the row too).
    const holder = new pg.Client({ connectionString: server.url });
    holder.on('error', () => {}); // the restart ends this session too
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM "Vehicle" WHERE id = $1 FOR UPDATE', [vehicle.id]);
    const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const answer = api.post('/v1/bookings', booking);
    await until(async () => (await backendsWaitingOn(db.pool!, rows[0].pid)).length > 0);

    await server.restart();
    unavailable(await answer);
    await holder.end().catch(() => {});

    expect(await db.prisma.booking.count({ where: { vehicleId: vehicle.id } })).toBe(0);
    expect(await db.prisma.customer.count({ where: { businessId: business.business_id, name: 'Grace Hopper' } })).toBe(0);
    const again = await api.post('/v1/bookings', booking);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });
});

/** Sessions of the service's LISTEN on the outbox's channel (the event relay's and the webhook worker's). */
async function listeningSessions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'");
    return rows[0].n;
  } finally {
    await client.end();
  }
}

async function until(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}
