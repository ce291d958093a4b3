// `npm run admin` as a real child process: help, bad arguments and databases it cannot open
// all end in a line or two and an exit code, never a stack trace. And describeDatabaseError
// on the real errors that opening a database throws.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { describeDatabaseError, describeDatabaseUrlProblem, redactDatabaseUrl } from '../src/db/connection-errors.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { ALL_PERMISSIONS } from '../src/domain/access/permissions.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'rental-admin-cli-'));
const BASE_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REFUSED = 'postgresql://postgres:s3cret@127.0.0.1:1/x';
let dirs = 0;

/** A fresh embedded data directory of this file's own. */
const freshDataDir = () => path.join(scratch, `data-${++dirs}`);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function admin(args: string[], env: { DATABASE_URL?: string; DATA_DIR?: string } = {}): Promise<Result> {
  const fullEnv = { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: path.join(scratch, 'unused'), ...env };
  return run('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, env: fullEnv }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );
}

/** A few plain lines: no stack frame, no object dump, no password. */
function expectClean(stderr: string, maxLines = 3) {
  const lines = stderr.trimEnd().split('\n');
  expect(lines.length, stderr).toBeLessThanOrEqual(maxLines);
  expect(stderr.trim(), 'some message').not.toBe('');
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toContain('{');
  expect(stderr).not.toContain('s3cret');
}

function withDatabase(url: string, pathname: string): string {
  const u = new URL(url);
  u.pathname = pathname;
  return u.toString();
}

// One embedded database held open by this process, for the "in use" cases (unmigrated: the
// lock is all they need, and migrating PGlite costs seconds).
const lockedDir = freshDataDir();
let held: Promise<Database> | undefined;
const holdEmbedded = () => (held ??= openDatabase({ dataDir: lockedDir, migrate: false }));

let throwaway: Awaited<ReturnType<typeof createTestPostgresDatabase>> | undefined;

afterAll(async () => {
  await (await held)?.close();
  await throwaway?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

// Each case waits mostly for child processes: run them side by side.
describe.concurrent('npm run admin', () => {
  it('--help, -h, help, no arguments and <noun> --help print the usage and exit 0', async () => {
    const results = await Promise.all([['--help'], ['-h'], ['help'], [], ['key', '--help'], ['business', 'create', '-h']].map((args) => admin(args)));
    for (const r of results) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(results[0].stdout);
    }
    const usage = results[0].stdout;
    for (const command of ['business create', 'business list', 'key list', 'key create', 'key revoke']) expect(usage).toContain(command);
    for (const flag of ['--name', '--currency', '--business', '--key', '--mode', '--kind', '--permissions', '--json', '--help']) expect(usage).toContain(flag);
    expect(usage).toContain('bookings:write');
    expect(usage).toContain('reports:read');
    for (const permission of ALL_PERMISSIONS) expect(usage).toMatch(new RegExp(`(^|\\s)${permission}(\\s|$)`));
  });

  it('unknown flag, missing value, unknown command, bad mode, missing flag, unknown permission', async () => {
    const [unknownFlag, missingValue, unknownCommand, badMode, missingFlag, badPermission] = await Promise.all([
      admin(['business', 'list', '--frobnicate']),
      admin(['business', 'create', '--name']),
      admin(['fleet', 'list']),
      admin(['key', 'create', '--business', 'biz_x', '--mode', 'prod', '--kind', 'secret']),
      admin(['key', 'create', '--business', 'biz_x']),
      admin(['key', 'create', '--business', 'biz_x', '--mode', 'test', '--kind', 'secret', '--permissions', 'bookings:read,bookings:wirte']),
    ]);
    for (const r of [unknownFlag, missingValue, unknownCommand, badMode, missingFlag]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expectClean(r.stderr);
    }
    expect(unknownFlag.stderr).toMatch(/unknown flag --frobnicate/);
    expect(missingValue.stderr).toMatch(/--name needs a value/);
    expect(unknownCommand.stderr).toMatch(/unknown command "fleet list"/);
    expect(unknownCommand.stderr).toContain('key create');
    expect(badMode.stderr).toMatch(/--mode must be test or live, not "prod"/);
    expect(missingFlag.stderr).toMatch(/key create needs --mode and --kind/);

    // Names the bad one (only), then lists the valid ones, from ALL_PERMISSIONS.
    expect(badPermission.code).toBe(2);
    expect(badPermission.stdout).toBe('');
    expectClean(badPermission.stderr, 2 + Math.ceil(ALL_PERMISSIONS.length / 4));
    const [first, ...list] = badPermission.stderr.trimEnd().split('\n');
    expect(first).toMatch(/unknown permission "bookings:wirte"/);
    expect(first).not.toContain('"bookings:read"');
    expect(first).toContain('did you mean bookings:write?');
    for (const permission of ALL_PERMISSIONS) expect(list.join('\n')).toContain(permission);
  });

  it('an unknown business or key, on a throwaway PostgreSQL database', async () => {
    throwaway = await createTestPostgresDatabase();
    const env = { DATABASE_URL: throwaway.url };
    const created = await admin(['business', 'create', '--name', 'Acme', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const businessId = JSON.parse(created.stdout).business_id;

    const [noBusiness, noKey, restricted] = await Promise.all([
      admin(['key', 'create', '--business', 'biz_nope', '--mode', 'test', '--kind', 'secret'], env),
      admin(['key', 'revoke', '--business', businessId, '--key', 'key_nope'], env),
      admin(['key', 'create', '--business', businessId, '--mode', 'live', '--kind', 'secret', '--permissions', 'bookings:write, reports:read', '--json'], env),
    ]);
    expect(noBusiness.code).toBe(2);
    expectClean(noBusiness.stderr, 2);
    expect(noBusiness.stderr).toMatch(/no business biz_nope/);
    expect(noKey.code).toBe(2);
    expectClean(noKey.stderr, 2);
    expect(noKey.stderr).toContain('no active key key_nope');
    expect(restricted.code, restricted.stderr).toBe(0);
    expect(JSON.parse(restricted.stdout)).toMatchObject({ mode: 'live', kind: 'secret', permissions: 'bookings:write,reports:read' });
  });

  it('refused, missing database, malformed URLs: exit 1; embedded database in use: exit 3', async () => {
    const missingUrl = withDatabase(BASE_URL, `/admin_cli_missing_${process.pid}`);
    await holdEmbedded();
    const results = await Promise.all([
      admin(['business', 'list'], { DATABASE_URL: REFUSED }),
      admin(['business', 'list'], { DATABASE_URL: missingUrl }),
      admin(['business', 'list'], { DATABASE_URL: 'not-a-url' }),
      admin(['business', 'list'], { DATABASE_URL: 'postgres://admin:s3cret@db.example:99999/x' }),
      admin(['business', 'create', '--name', 'X'], { DATA_DIR: lockedDir }),
    ]);
    const [refused, missing, notUrl, badPort, locked] = results;
    for (const r of results) {
      expect(r.stdout).toBe('');
      expectClean(r.stderr, r === locked ? 2 : 1);
    }
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/127\.0\.0\.1:1, database "x": connection refused/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`database "admin_cli_missing_${process.pid}" does not exist`);
    expect(notUrl.code).toBe(1);
    expect(notUrl.stderr).toMatch(/DATABASE_URL "not-a-url" is not a URL/);
    expect(badPort.code).toBe(1);
    expect(badPort.stderr).toContain('postgres://admin:***@db.example:99999/x');
    expect(badPort.stderr).toContain('port 99999 is out of range');
    expect(locked.code).toBe(3);
    expect(locked.stderr).toMatch(/in use by process \d+/);
    expect(locked.stderr).toMatch(/Nothing was changed/);
  });
});

// ------------------------------------------------------------------ describeDatabaseError

/** What opening the database throws (migrations first, as the commands do), or via Prisma's first query. */
async function openError(target: { databaseUrl?: string; dataDir?: string }, via: 'open' | 'prisma' = 'open'): Promise<unknown> {
  let db: Database | undefined;
  try {
    db = await openDatabase({ ...target, migrate: via === 'open' });
    if (via === 'prisma') await db.prisma.business.findMany();
  } catch (err) {
    return err;
  } finally {
    await db?.close().catch(() => {});
  }
  throw new Error(`opening ${JSON.stringify(target)} did not fail`);
}

/** A pg.Client connect error, from a scripted server speaking the PostgreSQL protocol. */
async function scriptedServerError(script: 'password-rejected' | 'scram-without-password', url: (port: number) => string): Promise<unknown> {
  const frame = (type: string, body: Buffer) => {
    const header = Buffer.alloc(5);
    header.write(type, 0);
    header.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([header, body]);
  };
  const int32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
  const field = (t: string, v: string) => Buffer.from(`${t}${v}\0`);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let messages = 0;
    socket.on('data', () => {
      if (socket.writableEnded) return; // the client's Terminate after our error
      messages++;
      if (script === 'password-rejected') {
        // AuthenticationCleartextPassword, then the server's answer to a wrong password.
        if (messages === 1) socket.write(frame('R', int32(3)));
        else {
          const fields = [field('S', 'FATAL'), field('V', 'FATAL'), field('C', '28P01'), field('M', 'password authentication failed for user "postgres"')];
          socket.end(frame('E', Buffer.concat([...fields, Buffer.from([0])])));
        }
      } else {
        // AuthenticationSASL (SCRAM-SHA-256), then SASLContinue.
        if (messages === 1) socket.write(frame('R', Buffer.concat([int32(10), Buffer.from('SCRAM-SHA-256\0\0')])));
        else socket.write(frame('R', Buffer.concat([int32(11), Buffer.from('r=abc,s=c2FsdA==,i=4096')])));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new pg.Client({ connectionString: url((server.address() as net.AddressInfo).port) });
  try {
    await client.connect();
    throw new Error('connected');
  } catch (err) {
    return err;
  } finally {
    await client.end().catch(() => {});
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe.concurrent('describeDatabaseError on real connection errors', () => {
  it('connection refused, raw from pg and wrapped by Prisma, never naming the password', async () => {
    const [raw, prisma] = await Promise.all([openError({ databaseUrl: REFUSED }), openError({ databaseUrl: REFUSED }, 'prisma')]);
    expect(raw).toMatchObject({ code: 'ECONNREFUSED' });
    expect(prisma).toMatchObject({ code: 'P1001' });
    for (const err of [raw, prisma]) {
      const line = describeDatabaseError(err, { databaseUrl: REFUSED })!;
      expect(line).toMatch(/^cannot connect to PostgreSQL at 127\.0\.0\.1:1, database "x": /);
      expect(line).not.toContain('s3cret');
      expect(line).not.toContain('\n');
    }
    expect(describeDatabaseError(raw, { databaseUrl: REFUSED })).toContain('connection refused');
  });

  it('an AggregateError of refused connections (a host with several addresses)', async () => {
    const err = await new Promise<unknown>((resolve) => {
      const socket = net.connect({
        host: 'db.test',
        port: 1,
        autoSelectFamily: true,
        // Two addresses for one name, as a dual-stack "localhost" has.
        lookup: ((_host: string, _opts: unknown, callback: (err: null, addresses: { address: string; family: number }[]) => void) =>
          callback(null, [{ address: '127.0.0.1', family: 4 }, { address: '127.0.0.2', family: 4 }])) as unknown as net.LookupFunction,
      });
      socket.on('error', resolve);
    });
    expect(err).toBeInstanceOf(AggregateError);
    const url = 'postgresql://app:s3cret@db.test:1/rentals';
    expect(describeDatabaseError(err, { databaseUrl: url })).toBe('cannot connect to PostgreSQL at db.test:1, database "rentals": connection refused (is the server running and listening there?)');
    expect(describeDatabaseError(new Error('outer', { cause: err }), { databaseUrl: url })).toContain('connection refused');
  });

  it('host not found', async () => {
    const url = 'postgresql://postgres@host-that-does-not-exist.invalid:5432/x';
    const err = await openError({ databaseUrl: url });
    expect(describeDatabaseError(err, { databaseUrl: url })).toMatch(
      /^cannot connect to PostgreSQL at host-that-does-not-exist\.invalid:5432, database "x": (host "host-that-does-not-exist\.invalid" not found|could not resolve host)/,
    );
  });

  it('a database that does not exist, and a role that does not, raw and through Prisma', async () => {
    const missingUrl = withDatabase(BASE_URL, `/admin_cli_missing_${process.pid}`);
    const noRole = new URL(BASE_URL);
    noRole.username = 'admin_cli_no_such_role';
    noRole.password = '';
    const errors = await Promise.all([
      openError({ databaseUrl: missingUrl }),
      openError({ databaseUrl: missingUrl }, 'prisma'),
      openError({ databaseUrl: noRole.toString() }),
      openError({ databaseUrl: noRole.toString() }, 'prisma'),
    ]);
    expect(errors[0]).toMatchObject({ code: '3D000' });
    for (const err of errors.slice(0, 2)) {
      expect(describeDatabaseError(err, { databaseUrl: missingUrl })).toMatch(new RegExp(`^cannot connect to PostgreSQL at .+: database "admin_cli_missing_${process.pid}" does not exist`));
    }
    expect(errors[2]).toMatchObject({ code: '28000' });
    for (const err of errors.slice(2)) {
      expect(describeDatabaseError(err, { databaseUrl: noRole.toString() })).toMatch(
        /access denied for user "admin_cli_no_such_role": role "admin_cli_no_such_role" does not exist$/,
      );
    }
  });

  it('a rejected password, and a server asking for a password the URL lacks', async () => {
    const rejected = await scriptedServerError('password-rejected', (port) => `postgresql://postgres:s3cret@127.0.0.1:${port}/rentals`);
    expect(rejected).toMatchObject({ code: '28P01' });
    const line = describeDatabaseError(rejected, { databaseUrl: 'postgresql://postgres:s3cret@127.0.0.1:6543/rentals' });
    expect(line).toBe('cannot connect to PostgreSQL at 127.0.0.1:6543, database "rentals": password authentication failed for user "postgres" (check the user and password in DATABASE_URL)');

    const noPassword = await scriptedServerError('scram-without-password', (port) => `postgresql://postgres@127.0.0.1:${port}/rentals`);
    expect(describeDatabaseError(noPassword, { databaseUrl: 'postgresql://postgres@127.0.0.1:6543/rentals' })).toMatch(
      /: the server wants a password for user "postgres" and DATABASE_URL has none$/,
    );
  });

  it('malformed URLs, whatever pg made of them', async () => {
    const [notUrl, badPort] = await Promise.all([openError({ databaseUrl: 'not-a-url' }), openError({ databaseUrl: 'postgres://u:s3cret@:99999' })]);
    // pg reads `not-a-url` as a path under postgres://base and looks "base" up.
    expect(describeDatabaseError(notUrl, { databaseUrl: 'not-a-url' })).toBe(
      'DATABASE_URL "not-a-url" is not a URL; expected postgresql://user:password@host:5432/database',
    );
    expect(badPort).toMatchObject({ code: 'ERR_INVALID_URL' });
    const line = describeDatabaseError(badPort, { databaseUrl: 'postgres://u:s3cret@:99999' })!;
    expect(line).toContain('"postgres://u:***@:99999" is not a valid URL (port 99999 is out of range)');
    expect(describeDatabaseUrlProblem('postgresql://user:pw@localhost:5432/db')).toBeNull();
    expect(describeDatabaseUrlProblem('mysql://user:pw@localhost/db')).toMatch(/is not a PostgreSQL URL/);
    expect(redactDatabaseUrl('postgresql://u:p@ss:w/rd@h:5/d?password=x&a=1')).toBe('postgresql://u:***@h:5/d?password=***&a=1');
  });

  it('the embedded database: held by another opener, or DATA_DIR not a directory', async () => {
    const db = await holdEmbedded();
    const locked = await openError({ dataDir: lockedDir });
    expect(describeDatabaseError(locked, { dataDir: lockedDir })).toMatch(/^the embedded database in .+ is in use by process \d+; stop the server or set DATABASE_URL$/);

    // Errors that are not about reaching the database are not described.
    const queryError = await db.prisma.$queryRawUnsafe('SELECT * FROM no_such_table').catch((err: unknown) => err);
    expect(queryError).toMatchObject({ code: 'P2010' });
    expect(describeDatabaseError(queryError, { dataDir: lockedDir })).toBeNull();
    expect(describeDatabaseError(queryError, { databaseUrl: REFUSED })).toBeNull();
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, 'not a directory');
    const notDir = await openError({ dataDir: file });
    expect(describeDatabaseError(notDir, { dataDir: file })).toBe(`cannot open the embedded database in ${file}: ${file} is not a directory (check DATA_DIR)`);
    expect(describeDatabaseError(new Error('boom'), { databaseUrl: REFUSED })).toBeNull();
  });
});
