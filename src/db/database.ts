// Opens the database: PostgreSQL when a URL is given, otherwise an embedded PGlite
// (PostgreSQL compiled to WebAssembly, in this process). One schema and one set of
// migrations serve both, so the domain never needs to know which one it talks to.
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { DirectSql } from './direct-sql.ts';
import { directSqlPool, postgresDirectSql } from './direct-sql-postgres.ts';
import { applyMigrations, createPGlite, loadPGlite } from './migrate.ts';
import { pendingMigrationsOn } from './migration-status.ts';
import { applyEmbeddedSettings, copyTemplateDirectory, readTemplate, readTemplateDirectory, saveTemplate } from './pglite-template.ts';
import { log } from '../log.ts';

export interface Database {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgres';
  /** PostgreSQL only: the pool Prisma's adapter draws on, shared by the tenant scope's direct SQL. */
  pool?: pg.Pool;
  /** PostgreSQL only: exact SQL for the tenant scope's reads by id and inserts, on `pool` (direct-sql.ts). */
  direct?: DirectSql;
  /**
   * Call `onNotify` for each NOTIFY on `channel` (sent at commit by `pg_notify` inside a
   * transaction). Returns a function that stops listening.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; when absent, the embedded database in `dataDir` is used. */
  databaseUrl?: string;
  /** PGlite data directory (default ./data); `memory://` keeps everything in memory (tests). */
  dataDir?: string;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
}

/** The embedded database directory is held by another live process (or already open here). */
export class DatabaseLockedError extends Error {
  override name = 'DatabaseLockedError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the embedded database in ${dataDir} is in use by process ${pid}; stop the server or set DATABASE_URL`);
  }
}

export async function openDatabase(opts: OpenDatabaseOptions = {}): Promise<Database> {
  const migrate = opts.migrate !== false;
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, migrate) : openEmbedded(opts.dataDir ?? './data', migrate);
}

async function openPostgres(url: string, migrate: boolean): Promise<Database> {
  // A server out of reach that drops packets (no refusal) would hold a request until the
  // kernel gives up on the connection, minutes later: after 10 s it is answered 503 instead.
  // Keepalives find the connections a network failure left half open.
  const pool = directSqlPool({ connectionString: url, max: poolSize(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
  let closed = false;
  // An idle connection that fails (server restart, or a test dropping its database right
  // after close) emits 'error' on the pool, which crashes the process if nobody listens.
  // The pool replaces the connection; the next query reports any lasting problem.
  pool.on('error', (err) => {
    if (!closed) log.error(`database: idle connection lost: ${err.message}`);
  });
  if (migrate) {
    try {
      // A restart finds every migration applied: one query on the pool (its connection is
      // Prisma's first) instead of a connection of its own, a lock, and the migrations read.
      if ((await pendingMigrationsOn(pool)).length > 0) await applyMigrations({ kind: 'postgres', url });
    } catch (err) {
      closed = true;
      await pool.end().catch(() => {});
      throw err;
    }
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const listeners = new Set<() => Promise<void>>();
  return {
    prisma,
    kind: 'postgres',
    pool,
    direct: postgresDirectSql(pool),
    listen: (channel, onNotify) => listenPostgres(url, channel, onNotify, listeners),
    close: once(async () => {
      await Promise.all([...listeners].map((stop) => stop()));
      closed = true;
      await prisma.$disconnect();
      // The adapter does not end a pool it was given; we own it.
      await pool.end();
    }),
  };
}

/**
 * A dedicated connection that LISTENs (pooled ones cannot). Lost (the server restarting, a
 * network failure), it is replaced: tried again every second until the server answers, however
 * long it is away, and `onNotify` runs once listening again, for what was committed meanwhile.
 * Returns a function that stops listening.
 */
async function listenPostgres(url: string, channel: string, onNotify: () => void, listeners: Set<() => Promise<void>>): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retrying: NodeJS.Timeout | null = null;
  const retry = () => {
    if (!stopped) retrying = setTimeout(() => void connect().catch(retry), 1_000).unref();
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    let lost = false;
    const lose = () => {
      if (lost) return;
      lost = true;
      if (client === c) client = null;
      c.end().catch(() => {});
    };
    c.on('notification', (msg) => msg.channel === channel && onNotify());
    const replace = () => {
      const wasListening = client === c;
      lose();
      if (wasListening) retry();
    };
    c.on('error', replace);
    c.on('end', replace); // the server closed it without an error
    try {
      await c.connect();
      await c.query(`LISTEN "${channel.replace(/"/g, '')}"`);
    } catch (err) {
      lose();
      throw err;
    }
    if (stopped) return lose();
    client = c;
    onNotify(); // anything committed while we were not listening
  };
  await connect();
  const stop = async () => {
    stopped = true;
    listeners.delete(stop);
    if (retrying) clearTimeout(retrying);
    await client?.end().catch(() => {});
  };
  listeners.add(stop);
  return stop;
}

/** How long a query waits for a connection of the pool (a new one connecting, or a busy pool's next free one). */
const CONNECT_TIMEOUT_MS = 10_000;

function poolSize(): number {
  const size = Number(process.env.DATABASE_POOL_SIZE ?? 20);
  if (!Number.isInteger(size) || size < 1) throw new Error(`DATABASE_POOL_SIZE must be a positive integer, got ${process.env.DATABASE_POOL_SIZE}`);
  return size;
}

async function openEmbedded(dataDir: string, migrate: boolean): Promise<Database> {
  // A new database starts from the template of the current migrations when there is one.
  const inMemory = dataDir.startsWith('memory://');
  const fresh = inMemory || !existsSync(path.join(dataDir, 'PG_VERSION'));
  // On disk, a copy of the template's directory; in memory (or without one), its dump.
  const templateDir = fresh && migrate && !inMemory ? await readTemplateDirectory() : null;
  const template = templateDir ?? (fresh && migrate ? await readTemplate() : null);
  // Loaded only for the embedded database: a server on PostgreSQL never holds PGlite's modules.
  const adapter = import('pglite-prisma-adapter');
  adapter.catch(() => {}); // awaited below, once the database is open
  const embedded = await openPGlite(dataDir, template);
  try {
    const { PrismaPGlite } = await adapter;
    if (migrate && !template) {
      await applyMigrations({ kind: 'pglite', pglite: embedded.pglite });
      if (fresh) await applyEmbeddedSettings(embedded.pglite);
      // Made once per set of migrations; a failure to keep it costs the next start time only.
      if (fresh) await saveTemplate(embedded.pglite).catch((err) => log.warn(`database: could not keep a template of the new database: ${(err as Error).message}`));
    }
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(embedded.pglite) });
    return {
      prisma,
      kind: 'pglite',
      async listen(channel, onNotify) {
        const unsubscribe = await embedded.pglite.listen(channel, () => onNotify());
        return async () => unsubscribe();
      },
      close: once(async () => {
        await prisma.$disconnect();
        await embedded.close();
      }),
    };
  } catch (err) {
    await embedded.close();
    throw err;
  }
}

/**
 * A PGlite instance on `dataDir` with the extensions the migrations need, holding the
 * directory's lock file: two PostgreSQL instances on one data directory corrupt it, and
 * PGlite does not guard against that itself. Also used by the migrate CLI.
 */
export async function openPGlite(dataDir: string, template?: Blob | string | null): Promise<{ pglite: PGlite; close(): Promise<void> }> {
  loadPGlite().catch(() => {}); // loading beside the lock and the copy; awaited by createPGlite
  const inMemory = dataDir.startsWith('memory://');
  const release = inMemory ? async () => {} : await lockDataDir(dataDir);
  try {
    // A template directory is copied in beside the lock; a dump is unpacked by PGlite itself.
    if (typeof template === 'string') await copyTemplateDirectory(template, dataDir);
    const loadDataDir = template instanceof Blob ? template : undefined;
    const pglite = await createPGlite(dataDir, loadDataDir);
    // A dump made from a database on disk holds that process's lock file, which unpacking it
    // wrote over ours: ours again, or a later open would take a dead process's lock for stale.
    if (loadDataDir && !inMemory) await restoreLock(dataDir);
    return {
      pglite,
      close: once(async () => {
        try {
          await pglite.close();
        } finally {
          await release();
        }
      }),
    };
  } catch (err) {
    await release();
    throw err;
  }
}

// ------------------------------------------------------------------ lock file

const heldLocks = new Set<string>();

/** Takes `<dataDir>/.lock` (holding our pid) or throws DatabaseLockedError; returns the release. */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = path.resolve(dataDir, '.lock');
  const content = `${process.pid}\n`;
  // Written aside and hard-linked into place: the link either fails or creates the lock with
  // its full content, so nobody can read a half-written lock and take it for a stale one.
  const tmpPath = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(tmpPath, content);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(tmpPath, lockPath);
        // At once, so a concurrent open in this process sees it as held, not as stale.
        heldLocks.add(lockPath);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
      }
      const holder = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
      if (holderIsAlive(holder, lockPath)) throw new DatabaseLockedError(dataDir, holder);
      // Left behind by a process that died without closing: take it over. (Two processes
      // taking over the same stale lock in the same instant could both win; rare enough for a
      // guard against starting a second server by mistake.)
      await unlink(lockPath).catch(() => {});
    }
  } finally {
    await unlink(tmpPath).catch(() => {});
  }

  // A process that exits without close() (process.exit in a signal handler) still frees it.
  const onExit = () => removeIfOurs(lockPath, content);
  process.once('exit', onExit);
  return once(async () => {
    process.removeListener('exit', onExit);
    heldLocks.delete(lockPath);
    removeIfOurs(lockPath, content);
  });
}

/** Write our pid into a lock we hold again (something wrote over the file). */
async function restoreLock(dataDir: string): Promise<void> {
  await writeFile(path.resolve(dataDir, '.lock'), `${process.pid}\n`);
}

function holderIsAlive(pid: number, lockPath: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  // Our own pid: alive if we hold it, stale if a previous process with our pid (a restarted
  // container often gets the same one) left it behind.
  if (pid === process.pid) return heldLocks.has(lockPath);
  try {
    process.kill(pid, 0); // signal 0 only checks that the process exists
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

function removeIfOurs(lockPath: string, content: string): void {
  // Synchronous because it also runs in the 'exit' handler.
  try {
    if (readFileSync(lockPath, 'utf8') === content) unlinkSync(lockPath);
  } catch {
    // already gone
  }
}

// ------------------------------------------------------------------ helpers

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
