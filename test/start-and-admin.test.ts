import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { seedDemoBusiness } from '../src/seed.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'rental-start-'));
const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', DATABASE_URL: '', REDIS_URL: '', SEED_DEMO: '' };

/** The last line start-up prints, whichever way it went with the demo business. */
const STARTED = /Try it:|already holds a business|holds no business/;

interface Started {
  child: ChildProcessWithoutNullStreams;
  /** Everything it wrote, standard output and error apart (the log is on standard output too). */
  stdout: () => string;
  stderr: () => string;
}

/** Run `npm start [-- args]` and wait until it has said what it did about the demo. */
async function startServer(overrides: Record<string, string> = {}, args: string[] = []): Promise<Started> {
  const child = spawn('npm', ['start', '--silent', ...(args.length ? ['--', ...args] : [])], { cwd: root, env: { ...env, ...overrides }, detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stdout}${stderr}`)), 90_000);
    const check = setInterval(() => {
      if (STARTED.test(stdout)) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 100);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${stdout}${stderr}`)));
  });
  return { child, stdout: () => stdout, stderr: () => stderr };
}

/** SIGTERM to npm and the server under it; resolves once every process of the group is gone. */
async function stop(child: ChildProcessWithoutNullStreams) {
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (groupAlive()) process.kill(-child.pid!, 'SIGTERM');
  // npm exits at once; the server finishes closing the database (and its lock) after it.
  for (let waited = 0; groupAlive(); waited += 50) {
    if (waited > 30_000) throw new Error('the server did not stop within 30 s of SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Run `npm start` to its end (a refused setting); its exit code and output. */
async function startToExit(overrides: Record<string, string>, args: string[] = []) {
  return run('npm', ['start', '--silent', ...(args.length ? ['--', ...args] : [])], { cwd: root, env: { ...env, ...overrides }, timeout: 60_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );
}

const admin = (...args: string[]) => adminWith({}, ...args);
const adminWith = (overrides: Record<string, string>, ...args: string[]) =>
  run('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, env: { ...env, ...overrides } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );

/** The demo's keys as start-up printed them (the JSON after "Seeded"). */
function printedKeys(stdout: string): Record<string, string> {
  return JSON.parse(/\{[\s\S]*?\}/.exec(stdout.slice(stdout.indexOf('Seeded')))![0]);
}

/** What a start printed about the demo: test keys only, and never a live key anywhere. */
function expectSandboxDemoPrinted(started: Started) {
  const keys = printedKeys(started.stdout());
  expect(Object.keys(keys).sort()).toEqual(['business_id', 'test_public_key', 'test_secret_key']);
  expect(keys.test_secret_key).toMatch(/^svc_test_sk_[0-9A-Za-z]{32,}$/);
  expect(keys.test_public_key).toMatch(/^svc_test_pk_/);
  expect(started.stdout() + started.stderr()).not.toContain('svc_live_');
  return keys;
}

/** Businesses, keys and vehicles by environment, as rows. */
async function rows(query: (text: string) => Promise<{ rows: Record<string, unknown>[] }>) {
  const count = async (text: string) => Number((await query(text)).rows[0].n);
  return {
    businesses: ((await query('SELECT name FROM "Business" ORDER BY "createdAt"')).rows as { name: string }[]).map((r) => r.name),
    liveKeys: await count('SELECT count(*) AS n FROM "ApiKey" WHERE livemode'),
    testKeys: await count('SELECT count(*) AS n FROM "ApiKey" WHERE NOT livemode'),
    liveVehicles: await count('SELECT count(*) AS n FROM "Vehicle" WHERE livemode'),
    testVehicles: await count('SELECT count(*) AS n FROM "Vehicle" WHERE NOT livemode'),
  };
}

async function postgresRows(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await rows((text) => client.query(text));
  } finally {
    await client.end();
  }
}

/** The embedded database's rows (only while no server holds it). */
async function embeddedRows(dir: string) {
  const db = await openDatabase({ dataDir: dir });
  try {
    return await rows(async (text) => ({ rows: await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(text) }));
  } finally {
    await db.close();
  }
}

describe('npm start on an empty embedded database, and the admin command', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('seeds a sandbox-only demo business, prints its test keys (no live key) and a curl command that works', async () => {
    const started = await startServer();
    const { child } = started;
    let businessId: string;
    try {
      const keys = expectSandboxDemoPrinted(started);
      businessId = keys.business_id;
      expect(started.stdout()).toContain('Seeded the demo business "Demo Rentals" with test keys and a sandbox fleet (nothing in live mode)');
      const curl = /curl [^\n]+/.exec(started.stdout())![0];
      expect(curl).toContain(keys.test_secret_key);
      const { stdout } = await run('sh', ['-c', curl]);
      const list = JSON.parse(stdout);
      expect(list).toMatchObject({ object: 'list', has_more: false });
      expect(list.data.length).toBe(3);
      expect(list.data.every((v: { livemode: boolean }) => v.livemode === false)).toBe(true);

      // While the server holds the embedded database, the admin command refuses and changes nothing.
      const refused = await admin('business', 'create', '--name', 'Second', '--json');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/in use by process \d+/);
      expect(refused.stderr).toMatch(/Nothing was changed/);
    } finally {
      await stop(child);
    }

    const listed = await admin('business', 'list', '--json');
    expect(JSON.parse(listed.stdout).map((b: any) => b.name)).toEqual(['Demo Rentals']);
    const keyList = JSON.parse((await admin('key', 'list', '--business', businessId, '--json')).stdout);
    expect(keyList.map((k: { mode: string; kind: string }) => `${k.mode} ${k.kind}`).sort()).toEqual(['test publishable', 'test secret']);
    expect(await embeddedRows(dataDir)).toEqual({ businesses: ['Demo Rentals'], liveKeys: 0, testKeys: 2, liveVehicles: 0, testVehicles: 3 });
  });

  it('creates a business with its four keys as JSON, and lists, creates and revokes keys', async () => {
    const created = await admin('business', 'create', '--name', 'Acme Cars', '--json');
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(Object.keys(body).sort()).toEqual(['business_id', 'live_public_key', 'live_secret_key', 'test_public_key', 'test_secret_key']);
    expect(body.live_secret_key).toMatch(/^svc_live_sk_/);

    const extra = JSON.parse((await admin('key', 'create', '--business', body.business_id, '--mode', 'test', '--kind', 'secret', '--permissions', 'bookings:read', '--json')).stdout);
    expect(extra.key).toMatch(/^svc_test_sk_/);
    const keys = JSON.parse((await admin('key', 'list', '--business', body.business_id, '--json')).stdout);
    expect(keys).toHaveLength(5);
    expect(JSON.stringify(keys)).not.toContain(extra.key); // secrets are shown once, never listed
    const revoked = await admin('key', 'revoke', '--business', body.business_id, '--key', extra.id, '--json');
    expect(JSON.parse(revoked.stdout)).toEqual({ id: extra.id, revoked: true });

    // A restart does not seed again (even when asked), and the server starts on the existing data.
    const restarted = await startServer({}, ['--demo']);
    await stop(restarted.child);
    expect(restarted.stdout()).toContain('already holds a business');
    expect(restarted.stdout()).not.toContain('Seeded');
    expect(restarted.stdout() + restarted.stderr()).not.toContain('svc_live_');
    expect((await embeddedRows(dataDir)).businesses).toEqual(['Demo Rentals', 'Acme Cars']);
  });

  it('SEED_DEMO=0 leaves an empty embedded database empty and says how to create a business', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rental-start-off-'));
    try {
      const started = await startServer({ DATA_DIR: dir, SEED_DEMO: '0' });
      await stop(started.child);
      expect(started.stdout()).not.toContain('Seeded');
      expect(started.stdout()).toMatch(/^The database holds no business and SEED_DEMO=0 turns the demo off; create one with: npm run admin -- business create --name .+ \(with the server stopped: the embedded database admits one process\)$/m);
      expect((await embeddedRows(dir)).businesses).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm start on an empty PostgreSQL database (DATABASE_URL)', () => {
  const databases: { drop(): Promise<void> }[] = [];
  const freshDatabase = async () => {
    const db = await createTestPostgresDatabase();
    databases.push(db);
    return db.url;
  };
  afterAll(async () => {
    for (const db of databases) await db.drop();
  });

  it('does not seed without being asked, and says in one line how to opt in or create a business', async () => {
    const url = await freshDatabase();
    const started = await startServer({ DATABASE_URL: url });
    try {
      expect(started.stdout()).not.toContain('Seeded');
      const hint = started.stdout().split('\n').filter((line) => /holds no business/.test(line));
      expect(hint).toEqual([
        'The PostgreSQL database (DATABASE_URL) holds no business; the demo business is seeded into it only when asked: npm start -- --demo (or SEED_DEMO=1), or create your own with: npm run admin -- business create --name "Your Rentals"',
      ]);
      expect(started.stdout() + started.stderr()).not.toMatch(/svc_(live|test)_/);
      // The admin command works beside the server on PostgreSQL, and finds nothing.
      expect(JSON.parse((await adminWith({ DATABASE_URL: url }, 'business', 'list', '--json')).stdout)).toEqual([]);
    } finally {
      await stop(started.child);
    }
    expect(await postgresRows(url)).toEqual({ businesses: [], liveKeys: 0, testKeys: 0, liveVehicles: 0, testVehicles: 0 });

    // `--demo` asks: the same database is seeded, sandbox only; a later start never seeds it twice.
    const asked = await startServer({ DATABASE_URL: url }, ['--demo']);
    await stop(asked.child);
    expectSandboxDemoPrinted(asked);
    expect(await postgresRows(url)).toEqual({ businesses: ['Demo Rentals'], liveKeys: 0, testKeys: 2, liveVehicles: 0, testVehicles: 3 });
    const again = await startServer({ DATABASE_URL: url, SEED_DEMO: '1' }, ['--demo']);
    await stop(again.child);
    expect(again.stdout()).toContain('already holds a business');
    expect(again.stdout()).not.toContain('Seeded');
    expect((await postgresRows(url)).businesses).toEqual(['Demo Rentals']);
  });

  it('SEED_DEMO=1 seeds it, sandbox only', async () => {
    const url = await freshDatabase();
    const started = await startServer({ DATABASE_URL: url, SEED_DEMO: '1' });
    await stop(started.child);
    expectSandboxDemoPrinted(started);
    expect(await postgresRows(url)).toEqual({ businesses: ['Demo Rentals'], liveKeys: 0, testKeys: 2, liveVehicles: 0, testVehicles: 3 });
  });

  it('is seeded once when servers start on it together (two connections seeding at the same moment)', async () => {
    const url = await freshDatabase();
    const [a, b] = await Promise.all([openDatabase({ databaseUrl: url }), openDatabase({ databaseUrl: url })]);
    try {
      const results = await Promise.all([seedDemoBusiness(a.prisma), seedDemoBusiness(b.prisma)]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    expect(await postgresRows(url)).toEqual({ businesses: ['Demo Rentals'], liveKeys: 0, testKeys: 2, liveVehicles: 0, testVehicles: 3 });
  });
});

describe('npm start refuses a setting or flag it does not know: one line, exit 2, nothing opened', () => {
  it('reads SEED_DEMO: unset seeds the embedded database only; 1 or true any empty one; 0 or false none', () => {
    const setting = (value?: string) => loadConfig(value === undefined ? {} : { SEED_DEMO: value }).seedDemo;
    expect([setting(), setting(''), setting('1'), setting('true'), setting(' TRUE '), setting('0'), setting('false')]).toEqual(['embedded', 'embedded', 'on', 'on', 'on', 'off', 'off']);
    expect(() => setting('2')).toThrow(/^SEED_DEMO must be 1 .* or 0 .*got '2'$/);
  });

  it.each([
    [{ SEED_DEMO: 'yes' }, [], /^SEED_DEMO must be 1 \(seed the demo business into an empty database, PostgreSQL included\) or 0 \(never seed it\); unset seeds only the embedded database; got 'yes'$/],
    [{}, ['--demo=yes'], /^npm start: .*--demo.*; the one flag it takes is --demo/],
    [{}, ['--seed'], /^npm start: Unknown option '--seed'; the one flag it takes is --demo/],
  ] as const)('%o %o', async (overrides, args, line) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rental-start-bad-'));
    try {
      const result = await startToExit({ DATA_DIR: path.join(dir, 'data'), ...overrides }, [...args]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(line);
      // Refused before the database was opened: no data directory was made.
      expect(existsSync(path.join(dir, 'data'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
