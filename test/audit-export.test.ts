// Audit records a business keeps longer than the platform does leave as JSON lines before the
// retention deletes them: `npm run admin -- audit export` (docs/retention.md), on both
// engines through the admin commands, and once as the real command on PostgreSQL.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminUsageError, parseAdminArgs, runAdminCommand } from '../src/admin/admin-commands.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { platformSql } from '../src/db/sql/named-sql.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { DEFAULT_RETENTION } from '../src/jobs/retention-policy.ts';
import { runRetentionPass } from '../src/jobs/retention.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';

const DAY = 86_400_000;
const run = promisify(execFile);

/** `count` audit records of one business and environment, one an hour up to `newest`, oldest first (ids in creation order). */
async function records(db: Database, scope: { businessId: string; livemode: boolean }, count: number, newest: Date) {
  const rows = Array.from({ length: count }, (_, i) => ({
    id: newId('audit'), ...scope, requestId: newId('request'), apiKeyId: 'key_export', memberId: null, method: 'POST', path: `/v1/bookings/bk_${i}/cancel`,
    operation: 'cancelBooking', status: 200, bookingId: `bk_${i}`, objects: [`bk_${i}`, `pay_${i}`], createdAt: new Date(newest.getTime() - (count - 1 - i) * 3_600_000),
  }));
  await db.prisma.auditLog.createMany({ data: rows });
  return rows;
}

const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n');

describe.each(ENGINES)('audit export on %s', (engine) => {
  let db: Database;
  let drop: (() => Promise<void>) | undefined;
  let dir: string;
  let businessId: string;
  let live: Awaited<ReturnType<typeof records>>;
  const now = new Date();

  beforeAll(async () => {
    const pg = engine === 'postgres' ? await createTestPostgresDatabase() : null;
    drop = pg?.drop;
    db = await openDatabase(pg ? { databaseUrl: pg.url } : { dataDir: 'memory://' });
    dir = await mkdtemp(path.join(tmpdir(), 'audit-export-'));
    businessId = (await createBusiness(db.prisma, { name: 'Audited Rentals' })).business_id;
    const other = (await createBusiness(db.prisma, { name: 'Other Rentals' })).business_id;
    // More than a page (1,000) of live records, 400 to 350 days old; test-mode ones and another business's beside them.
    live = await records(db, { businessId, livemode: true }, 1_205, new Date(now.getTime() - 350 * DAY));
    await records(db, { businessId, livemode: false }, 20, new Date(now.getTime() - 380 * DAY));
    await records(db, { businessId: other, livemode: true }, 20, new Date(now.getTime() - 380 * DAY));
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
    await rm(dir, { recursive: true, force: true });
  });

  const exportTo = (name: string, more: { since?: string; before?: string } = {}) =>
    runAdminCommand(db.prisma, ['audit', 'export'], { business: businessId, mode: 'live', out: path.join(dir, name), ...more }) as Promise<{ records: number; file: string }>;

  it('writes every record of the business in one environment, one JSON object a line, oldest first', async () => {
    const result = await exportTo('all.jsonl');
    expect(result).toMatchObject({ records: 1_205, file: path.join(dir, 'all.jsonl') });
    const text = await lines(result.file);
    expect(text.pop()).toBe(''); // every line ends with a newline, the last one too
    const parsed = text.map((l) => JSON.parse(l));
    expect(parsed.map((r) => r.id)).toEqual(live.map((r) => r.id));
    expect(parsed[0]).toEqual({
      id: live[0].id, object: 'audit_record', business_id: businessId, livemode: true, created_at: live[0].createdAt.toISOString(), request_id: live[0].requestId,
      api_key_id: 'key_export', member_id: null, app_id: null, method: 'POST', path: '/v1/bookings/bk_0/cancel', operation: 'cancelBooking', status: 200, booking_id: 'bk_0', objects: ['bk_0', 'pay_0'],
    });
  });

  it('a window by creation time: --since at or after, --before before', async () => {
    const since = live[100].createdAt.toISOString();
    const before = live[200].createdAt.toISOString();
    const result = await exportTo('window.jsonl', { since, before });
    expect(result.records).toBe(100);
    const ids = (await lines(result.file)).filter(Boolean).map((l) => JSON.parse(l).id);
    expect(ids).toEqual(live.slice(100, 200).map((r) => r.id));
  });

  it('never overwrites a file, and leaves no partial file behind', async () => {
    const file = path.join(dir, 'kept.jsonl');
    await writeFile(file, 'precious\n');
    await expect(exportTo('kept.jsonl')).rejects.toThrow(AdminUsageError);
    expect(await readFile(file, 'utf8')).toBe('precious\n');
    await expect(readFile(`${file}.partial`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('exported before the retention pass, the file holds exactly the records it deletes', async () => {
    const cutoff = new Date(now.getTime() - DEFAULT_RETENTION.auditDays * DAY);
    const result = await exportTo('expiring.jsonl', { before: cutoff.toISOString() });
    const exported = (await lines(result.file)).filter(Boolean).map((l) => JSON.parse(l).id);
    const before = new Set((await db.prisma.auditLog.findMany({ where: { businessId, livemode: true }, select: { id: true } })).map((r) => r.id));
    await runRetentionPass(platformSql(db), { ...DEFAULT_RETENTION, batchSize: 100 }, now);
    const after = new Set((await db.prisma.auditLog.findMany({ where: { businessId, livemode: true }, select: { id: true } })).map((r) => r.id));
    const deleted = [...before].filter((id) => !after.has(id));
    expect(exported.length).toBeGreaterThan(0);
    expect(exported.length).toBeLessThan(live.length);
    expect(exported.sort()).toEqual(deleted.sort());
  });
});

describe('npm run admin -- audit export', () => {
  it('checks its flags before opening the database', () => {
    const base = ['audit', 'export', '--business', 'biz_x', '--mode', 'live', '--out', 'x.jsonl'];
    expect(parseAdminArgs(base)).toMatchObject({ command: 'audit export' });
    expect(() => parseAdminArgs([...base, '--since', 'yesterday'])).toThrow(/--since must be a day/);
    expect(() => parseAdminArgs([...base, '--since', '2026-02-01', '--before', '2026-01-01'])).toThrow(/--since must be before --before/);
    expect(() => parseAdminArgs([...base, '--before', '2026-01-01T00:00:00'])).toThrow(/with its offset/);
    expect(() => parseAdminArgs(base.slice(0, 6))).toThrow(/needs --out/);
    expect(() => parseAdminArgs(['audit', 'export', '--business', 'biz_x', '--out', 'x'])).toThrow(/needs --mode/);
  });

  it('as a real command on PostgreSQL: the file, and a summary of what it holds', async () => {
    const pg = await createTestPostgresDatabase();
    const dir = await mkdtemp(path.join(tmpdir(), 'audit-export-cli-'));
    try {
      const db = await openDatabase({ databaseUrl: pg.url });
      let businessId: string;
      try {
        businessId = (await createBusiness(db.prisma, { name: 'Audited Rentals' })).business_id;
        await records(db, { businessId, livemode: false }, 3, new Date());
      } finally {
        await db.close();
      }
      const file = path.join(dir, 'test-mode.jsonl');
      const env = { ...process.env, DATABASE_URL: pg.url, REDIS_URL: '' };
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', 'audit', 'export', '--business', businessId, '--mode', 'test', '--out', file, '--json'], { env });
      expect(JSON.parse(stdout)).toMatchObject({ file, business: businessId, mode: 'test', records: 3 });
      expect((await lines(file)).filter(Boolean).map((l) => JSON.parse(l).business_id)).toEqual([businessId, businessId, businessId]);
    } finally {
      await pg.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
