// Backup and restore, as docs/backup-and-restore.md tells an operator to do them:
// - PostgreSQL: `pg_dump -Fc`, `pg_restore` into a fresh database, the service started on it;
// - the embedded database: `npm run db:export`, loaded with `psql` into a fresh PostgreSQL
//   database, the service started on it (the move from the default to PostgreSQL).
// Each time, what the API answered before is what it answers after, and the rules the
// database itself holds (no overlapping bookings, idempotent replays, keys) still hold.
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type OpenDatabaseOptions } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { buildApp } from '../src/server.ts';
import { restClient } from './support/app.ts';
import { createBooking, createVehicle, nextPeriod } from './support/fixtures.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';

const run = promisify(execFile);
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function postgresDatabase(): Promise<string> {
  const database = await createTestPostgresDatabase();
  cleanups.push(() => database.drop());
  return database.url;
}

/** The service on a database, as `npm start` runs it (migrations applied on open). */
async function serve(target: OpenDatabaseOptions, filesDir: string) {
  const db = await openDatabase(target);
  const app = await buildApp({ db, config: { ...loadConfig({}), holdSweepMs: 0, filesDir } });
  const server = await app.listen(0, '127.0.0.1');
  return {
    db,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await app.close();
      await db.close();
    },
  };
}

type Served = Awaited<ReturnType<typeof serve>>;

/** Traffic that leaves every kind of row a business has: bookings, money, events, endpoints, keys. */
async function workload(service: Served, business: CreatedBusiness) {
  const api = restClient(service.baseUrl, business.test_secret_key);
  const vehicle = await createVehicle(api);
  const kept = await createBooking(api, vehicle.id);
  expect((await api.post(`/v1/test/bookings/${kept.id}/payment/succeed`)).status).toBe(200);
  const canceled = await createBooking(api, vehicle.id);
  expect((await api.post(`/v1/test/bookings/${canceled.id}/payment/succeed`)).status).toBe(200);
  expect((await api.post(`/v1/bookings/${canceled.id}/cancel`, { reason: 'plans changed' })).status).toBe(200);
  expect((await api.post('/v1/developers/webhooks', { url: 'https://hooks.example.com/rentals', enabled_events: ['booking.created'] })).status).toBe(201);
  // An idempotent create whose stored answer a retry after the restore must still replay.
  const replayed = { vehicle_id: vehicle.id, ...nextPeriod(), customer: { name: 'Grace Hopper', email: 'grace@example.com' } };
  const first = await api.post('/v1/bookings', replayed, { 'idempotency-key': 'backup-restore-create-1' });
  expect(first.status).toBe(201);
  return { api, vehicle, kept, canceled, replayed, first };
}

/** What a client reads of the business: the answers compared before and after. */
async function reads(baseUrl: string, business: CreatedBusiness, bookingIds: string[]) {
  const api = restClient(baseUrl, business.test_secret_key);
  const paths = ['/v1/vehicles', '/v1/bookings', '/v1/customers', '/v1/events?limit=100', '/v1/developers/webhooks', ...bookingIds.flatMap((id) => [`/v1/bookings/${id}`, `/v1/bookings/${id}/transactions`, `/v1/bookings/${id}/payment`])];
  const answers: Record<string, unknown> = {};
  for (const path of paths) {
    const res = await api.get(path);
    expect(res.status, path).toBe(200);
    answers[path] = res.body;
  }
  return answers;
}

/**
 * The rules the database holds itself (the overlap exclusion, triggers, functions, indexes):
 * a restore that lost one would still answer reads alike.
 */
async function databaseRules(service: Served): Promise<string[]> {
  const rows = await service.db.prisma.$queryRawUnsafe<{ rule: string }[]>(`
    SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS rule FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype <> 'n'
    UNION ALL SELECT 'index ' || indexname || ' ' || regexp_replace(indexdef, ' ON (ONLY )?public\.', ' ON ') FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL SELECT 'trigger ' || tgrelid::regclass || ' ' || tgname FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL SELECT 'function ' || proname || '(' || pg_get_function_identity_arguments(oid) || ')' FROM pg_proc p WHERE pronamespace = 'public'::regnamespace
      -- an extension's own functions (btree_gist's) differ between server versions, not backups
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`);
  return rows.map((r) => r.rule).sort();
}

/** The checks made on the restored service besides equal reads. */
async function checkRestored(service: Served, databaseUrl: string, business: CreatedBusiness, before: Awaited<ReturnType<typeof workload>>) {
  const api = restClient(service.baseUrl, business.test_secret_key);
  // The stored answer of a key survives: replayed, not run again.
  const replay = await api.post('/v1/bookings', before.replayed, { 'idempotency-key': 'backup-restore-create-1' });
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(before.first.body);
  // The exclusion constraint came back with the rows: the kept booking's period is taken.
  const overlapping = await api.post('/v1/bookings', { vehicle_id: before.vehicle.id, start_at: before.kept.start_at, end_at: before.kept.end_at, customer: { name: 'Late Comer', email: 'late@example.com' } });
  expect(overlapping.status).toBe(409);
  expect(overlapping.body.error.code).toBe('vehicle_unavailable');
  // New rows go in beside the restored ones.
  const fresh = await createBooking(api, before.vehicle.id);
  expect((await api.post(`/v1/test/bookings/${fresh.id}/payment/succeed`)).status).toBe(200);
  expect((await api.get(`/v1/bookings/${fresh.id}`)).body.state).toBe('confirmed');
  // The live keys, never used before the backup, authenticate too.
  expect((await restClient(service.baseUrl, business.live_secret_key).get('/v1/vehicles')).status).toBe(200);
  // Nothing left to migrate: the schema came back whole.
  const { applied } = await applyMigrations({ kind: 'postgres', url: databaseUrl });
  expect(applied).toEqual([]);
}

describe('backup and restore', () => {
  it('PostgreSQL: pg_dump, pg_restore into a fresh database, and the service answers as before', { timeout: 180_000 }, async () => {
    const source = await postgresDatabase();
    const filesDir = await tempDir('rental-backup-files-');
    const service = await serve({ databaseUrl: source }, filesDir);
    const business = await createBusiness(service.db.prisma, { name: 'Backed Up Rentals' });
    const done = await workload(service, business);
    const ids = [done.kept.id, done.canceled.id, done.first.body.id];
    const before = await reads(service.baseUrl, business, ids);
    const rules = await databaseRules(service);
    expect(rules.some((r) => r.includes('Booking_no_overlap'))).toBe(true);
    expect((before[`/v1/bookings/${done.canceled.id}/transactions`] as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(2);
    await service.close();

    const dump = join(await tempDir('rental-backup-'), 'rentals.dump');
    await run('pg_dump', ['--format=custom', '--file', dump, source]);
    const target = await postgresDatabase();
    await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', target, dump]);

    const restored = await serve({ databaseUrl: target }, filesDir);
    try {
      expect(await reads(restored.baseUrl, business, ids)).toEqual(before);
      expect(await databaseRules(restored)).toEqual(rules);
      await checkRestored(restored, target, business, done);
    } finally {
      await restored.close();
    }
  });

  it('embedded to PostgreSQL: npm run db:export, psql into a fresh database, and the service answers as before', { timeout: 180_000 }, async () => {
    const dataDir = await tempDir('rental-embedded-');
    const filesDir = join(dataDir, 'files');
    const service = await serve({ dataDir }, filesDir);
    const business = await createBusiness(service.db.prisma, { name: 'Moving Rentals' });
    const done = await workload(service, business);
    const ids = [done.kept.id, done.canceled.id, done.first.body.id];
    const before = await reads(service.baseUrl, business, ids);
    const rules = await databaseRules(service);
    expect(rules.some((r) => r.includes('Booking_no_overlap'))).toBe(true);

    // While the server holds the directory the export refuses, naming the holder.
    const sql = join(await tempDir('rental-export-'), 'rentals.sql');
    const exportCommand = ['run', '--silent', 'db:export', '--', '--out', sql];
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
    const refused = await run('npm', exportCommand, { env }).catch((err: { code: number; stderr: string }) => err);
    expect((refused as { code: number }).code).toBe(1);
    expect((refused as { stderr: string }).stderr).toContain(`in use by process ${process.pid}`);
    await service.close();

    const exported = await run('npm', exportCommand, { env });
    expect(exported.stdout).toContain(`to ${sql}`);
    const target = await postgresDatabase();
    await run('psql', [target, '-v', 'ON_ERROR_STOP=1', '--single-transaction', '--quiet', '-f', sql]);

    const moved = await serve({ databaseUrl: target }, filesDir);
    try {
      expect(await reads(moved.baseUrl, business, ids)).toEqual(before);
      expect(await databaseRules(moved)).toEqual(rules);
      await checkRestored(moved, target, business, done);
    } finally {
      await moved.close();
    }
  });
});
