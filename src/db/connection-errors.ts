// One human line for the errors of opening the database (src/db/database.ts), for the
// command-line entry points: they print it instead of a stack trace.
//
// The shapes, as observed here (pg 8.23, @prisma/adapter-pg 7.10, Node 20):
// - openDatabase on PostgreSQL first connects a plain pg.Client (the migration lock in
//   migrate.ts), so most failures are raw: a Node socket error { code: 'ECONNREFUSED' |
//   'ENOTFOUND' | 'EAI_AGAIN' | 'EHOSTUNREACH' | 'ETIMEDOUT', syscall, address, port }, an
//   AggregateError with the same code and one such error per address tried (a host with
//   several addresses), or pg's DatabaseError { code: '3D000' | '28P01' | '28000', severity:
//   'FATAL' } from the server.
// - Through Prisma (a query on a pool that never connected): PrismaClientKnownRequestError
//   { code: 'P1001' | 'P1003' | 'P1010' | ..., meta.driverAdapterError: DriverAdapterError
//   { cause: { kind: 'DatabaseNotReachable' | 'DatabaseDoesNotExist' | 'DatabaseAccessDenied'
//   | 'AuthenticationFailed' | ..., originalCode?, originalMessage? } } }.
// - A malformed URL: pg throws TypeError ERR_INVALID_URL (input redacted) for
//   `postgres://:99999`, but takes `not-a-url` as a path relative to postgres://base and
//   fails with ENOTFOUND "base"; so the URL itself is checked, not only the error.
// - The embedded database: DatabaseLockedError, fs errors on DATA_DIR, and PGlite's
//   "PGlite failed to initialize properly" for a directory that is not a PGlite database.
import path from 'node:path';

export interface DatabaseTarget {
  /** PostgreSQL connection string; when absent the embedded database in `dataDir` is meant. */
  databaseUrl?: string;
  dataDir?: string;
}

const URL_EXAMPLE = 'postgresql://user:password@host:5432/database';
const PASSWORD_MASK = '***';

/**
 * One line saying why the database could not be opened, or null when `err` is not a
 * connection or startup problem (a bug, a failing query...). Never contains the password of
 * `target.databaseUrl`.
 */
export function describeDatabaseError(err: unknown, target: DatabaseTarget): string | null {
  const locked = find(err, (e) => e instanceof Error && e.name === 'DatabaseLockedError');
  if (locked) return String(locked.message); // already says which directory and process

  if (target.databaseUrl) {
    const urlProblem = describeDatabaseUrlProblem(target.databaseUrl);
    const invalidUrl = find(err, (e) => e.code === 'ERR_INVALID_URL' || (e instanceof TypeError && e.message === 'Invalid URL'));
    const problem = classifyPostgres(err);
    // With a malformed URL pg connects to whatever it made of it ("base" for `not-a-url`).
    if (urlProblem && (problem || invalidUrl)) return urlProblem;
    if (invalidUrl) return `DATABASE_URL is not a valid PostgreSQL URL; expected ${URL_EXAMPLE}`;
    if (!problem) return null;
    const url = target.databaseUrl;
    return problem({ ...parseTarget(url), scrub: (text) => scrubPassword(text, url) });
  }
  return describeEmbedded(err, target.dataDir ?? './data');
}

/**
 * Why `databaseUrl` is not a PostgreSQL URL pg can use, as one line naming it (password
 * masked), or null when it is one. Catches what pg would otherwise read as a host name.
 */
export function describeDatabaseUrlProblem(databaseUrl: string): string | null {
  const url = databaseUrl.trim();
  // pg also takes a Unix socket directory ("/var/run/postgresql dbname").
  if (url.startsWith('/')) return null;
  const shown = `"${redactDatabaseUrl(url)}"`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (!scheme) return `DATABASE_URL ${shown} is not a URL; expected ${URL_EXAMPLE}`;
  if (scheme !== 'postgres' && scheme !== 'postgresql' && scheme !== 'socket') {
    return `DATABASE_URL ${shown} is not a PostgreSQL URL (${scheme}://); expected ${URL_EXAMPLE}`;
  }
  try {
    new URL(url);
    return null;
  } catch {
    return `DATABASE_URL ${shown} is not a valid URL${malformedReason(url)}; expected ${URL_EXAMPLE}`;
  }
}

/** `databaseUrl` with its password (in the user info or a `password=` parameter) masked. */
export function redactDatabaseUrl(databaseUrl: string): string {
  let out = databaseUrl.replace(/([?&]password=)[^&#]*/gi, `$1${PASSWORD_MASK}`);
  const span = userInfoPassword(out);
  if (span) out = out.slice(0, span.from) + PASSWORD_MASK + out.slice(span.to);
  return out;
}

/** `text` with the password of `databaseUrl` (as written, and decoded) masked. */
export function scrubPassword(text: string, databaseUrl: string | undefined): string {
  if (!databaseUrl) return text;
  const secrets = new Set<string>();
  const add = (s: string) => {
    if (s) secrets.add(s).add(safeDecode(s));
  };
  for (const m of databaseUrl.matchAll(/[?&]password=([^&#]*)/gi)) add(m[1]);
  const span = userInfoPassword(databaseUrl);
  if (span) {
    add(databaseUrl.slice(span.from, span.to));
    // Up to the first "@" too, in case the last one belonged to the path or query.
    const firstAt = databaseUrl.indexOf('@', span.from);
    if (firstAt >= 0) add(databaseUrl.slice(span.from, firstAt));
  }
  let out = text;
  // Longest first, so that a shorter form contained in a longer one goes with it.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join(PASSWORD_MASK);
  return out;
}

/**
 * Where the password of `user:password@` sits in a URL. Up to the last "@": a password may
 * hold a raw "@", "/" or "#"; masking too much is harmless, too little is not.
 */
function userInfoPassword(url: string): { from: number; to: number } | null {
  const schemeEnd = url.indexOf('://');
  const start = schemeEnd >= 0 ? schemeEnd + 3 : 0;
  const lastAt = url.lastIndexOf('@');
  if (lastAt < start) return null;
  const colon = url.indexOf(':', start);
  if (colon < 0 || colon > lastAt) return null;
  return { from: colon + 1, to: lastAt };
}

// ------------------------------------------------------------------ PostgreSQL

/**
 * True when `err` says PostgreSQL could not be reached or the connection was lost (refused,
 * reset, timed out, the server shutting down or restarting), as opposed to a query the server
 * refused. A request that meets it is answered 503 with Retry-After (the edge,
 * src/http/error-envelope.ts); the pool replaces the lost connections by itself.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  // A refused or reset socket is the database's only when the database's client says so: the
  // same codes from a webhook endpoint, the file store or the processor mean something else.
  return find(err, fromDatabase) !== undefined && classifyPostgres(err) !== null;
}

/** Marks an error that the database's connection pool raised (direct-sql-postgres.ts). */
export const FROM_DATABASE_POOL = Symbol('from the database pool');

/** pg's own errors of a lost connection, raised without a code. */
const PG_CONNECTION_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
]);

/** An error raised by PostgreSQL, by Prisma or its driver adapter, or by the database's pool. */
function fromDatabase(e: Record<string, unknown>): boolean {
  return (
    typeof e.clientVersion === 'string' || // Prisma's errors
    typeof e.severity === 'string' || // the server's (pg's DatabaseError)
    e.name === 'DriverAdapterError' ||
    (e as Record<symbol, unknown>)[FROM_DATABASE_POOL] === true ||
    (typeof e.message === 'string' && PG_CONNECTION_MESSAGES.has(e.message))
  );
}

interface PgTarget {
  /** "host:port", "[::1]:5432" or a socket directory. */
  where: string;
  host: string;
  database: string;
  user: string;
  /** For text that comes from the server or a library (ours never holds the password). */
  scrub(text: string): string;
}

type Describe = (t: PgTarget) => string;

const at = (t: PgTarget) => `cannot connect to PostgreSQL at ${t.where}, database "${t.database}"`;

/** How to describe the first connection problem found in `err`, or null. */
function classifyPostgres(err: unknown): Describe | null {
  // Raw socket and server errors first: they carry more than Prisma's summary of them.
  for (const classify of [classifyNode, classifyPrismaCode]) {
    const hit: { describe?: Describe | null } = {};
    walk(err, (e) => (hit.describe = classify(e)) !== null);
    if (hit.describe) return hit.describe;
  }
  return null;
}

function classifyNode(e: Record<string, unknown>): Describe | null {
  const code = typeof e.originalCode === 'string' ? e.originalCode : typeof e.code === 'string' ? e.code : undefined;
  const kind = typeof e.kind === 'string' ? e.kind : undefined;
  const message = typeof e.originalMessage === 'string' ? e.originalMessage : typeof e.message === 'string' ? e.message : '';
  // A SQLSTATE from the server (pg's DatabaseError has a severity; Prisma's cause an originalCode).
  const sqlState = code && /^[0-9A-Z]{5}$/.test(code) && (typeof e.severity === 'string' || typeof e.originalCode === 'string') ? code : undefined;

  switch (sqlState) {
    case '28P01':
      return (t) => `${at(t)}: password authentication failed for user "${t.user}" (check the user and password in DATABASE_URL)`;
    case '28000':
      return (t) => `${at(t)}: access denied for user "${t.user}": ${t.scrub(message)}`;
    case '3D000':
      return (t) => `cannot connect to PostgreSQL at ${t.where}: database "${t.database}" does not exist (create it, or fix DATABASE_URL)`;
    case '53300':
      return (t) => `${at(t)}: the server has too many connections (${t.scrub(message)})`;
    case '57P03':
      return (t) => `${at(t)}: the server is not accepting connections now (${t.scrub(message)})`;
    // A server that stops or restarts ends its sessions: the statements in flight get these.
    case '57P01':
    case '57P02':
      return (t) => `${at(t)}: the server ended the connection (${t.scrub(message)})`;
  }
  // Class 08, connection exception: the server or the protocol lost the connection.
  if (sqlState?.startsWith('08')) return (t) => `${at(t)}: the connection failed (${t.scrub(message)})`;
  switch (code) {
    case 'ECONNREFUSED':
      return (t) => `${at(t)}: connection refused (is the server running and listening there?)`;
    case 'ENOTFOUND':
      return (t) => `${at(t)}: host "${t.host}" not found (DNS)`;
    case 'EAI_AGAIN':
      return (t) => `${at(t)}: could not resolve host "${t.host}" (temporary DNS failure)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return (t) => `${at(t)}: host unreachable (${code})`;
    case 'ETIMEDOUT':
      return (t) => `${at(t)}: connection timed out`;
    case 'ECONNRESET':
    case 'EPIPE':
      return (t) => `${at(t)}: the server closed the connection (${code})`;
  }
  switch (kind) {
    case 'DatabaseNotReachable':
      return (t) => `${at(t)}: server not reachable (connection refused or host not found)`;
    case 'AuthenticationFailed':
      return (t) => `${at(t)}: password authentication failed for user "${t.user}" (check the user and password in DATABASE_URL)`;
    case 'DatabaseAccessDenied':
      return (t) => `${at(t)}: access denied for user "${t.user}"`;
    case 'DatabaseDoesNotExist':
      return (t) => `cannot connect to PostgreSQL at ${t.where}: database "${t.database}" does not exist (create it, or fix DATABASE_URL)`;
    case 'SocketTimeout':
      return (t) => `${at(t)}: connection timed out`;
    case 'ConnectionClosed':
      return (t) => `${at(t)}: the server closed the connection`;
    case 'TooManyConnections':
      return (t) => `${at(t)}: the server has too many connections`;
    case 'TlsConnectionError':
      return (t) => `${at(t)}: TLS failed: ${typeof e.reason === 'string' ? `${t.scrub(e.reason)} ` : ''}(see sslmode in DATABASE_URL)`;
  }
  if (/^SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a (non-empty )?string$/.test(message)) {
    return (t) => `${at(t)}: the server wants a password for user "${t.user}" and DATABASE_URL has none`;
  }
  if (message === 'The server does not support SSL connections' || message === 'There was an error establishing an SSL connection') {
    return (t) => `${at(t)}: TLS failed: ${message} (see sslmode in DATABASE_URL)`;
  }
  if (typeof code === 'string' && /^(ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/.test(code)) {
    return (t) => `${at(t)}: TLS failed: ${t.scrub(message || code)} (see sslmode in DATABASE_URL)`;
  }
  // pg's own connect timeout (connectionTimeoutMillis), and the pool's.
  if (message === 'timeout expired' || /^Connection terminated due to connection timeout$|^timeout exceeded when trying to connect$/.test(message)) {
    return (t) => `${at(t)}: connection timed out`;
  }
  if (message === 'Connection terminated unexpectedly') return (t) => `${at(t)}: the server closed the connection`;
  // pg's answer to a query on a connection that has already failed.
  if (message === 'Client has encountered a connection error and is not queryable') return (t) => `${at(t)}: the connection was lost`;
  return null;
}

/** Prisma's connection error codes, for a Prisma error that carries no adapter error. */
function classifyPrismaCode(e: Record<string, unknown>): Describe | null {
  if (typeof e.clientVersion !== 'string') return null;
  switch (e.code) {
    case 'P1000':
      return (t) => `${at(t)}: password authentication failed for user "${t.user}" (check the user and password in DATABASE_URL)`;
    case 'P1001':
      return (t) => `${at(t)}: server not reachable`;
    case 'P1002':
      return (t) => `${at(t)}: connection timed out`;
    case 'P1003':
      return (t) => `cannot connect to PostgreSQL at ${t.where}: database "${t.database}" does not exist (create it, or fix DATABASE_URL)`;
    case 'P1010':
      return (t) => `${at(t)}: access denied for user "${t.user}"`;
    case 'P1011':
      return (t) => `${at(t)}: TLS failed (see sslmode in DATABASE_URL)`;
    case 'P1017':
      return (t) => `${at(t)}: the server closed the connection`;
    case 'P2024':
      return (t) => `${at(t)}: no connection of the pool became free in time`;
    case 'P2028':
      // A transaction that could not begin in time (no connection came), or that outlasted its timeout (rolled back).
      if (typeof e.message === 'string' && /Unable to start a transaction in the given time|on an expired transaction/.test(e.message)) {
        return (t) => `${at(t)}: the database did not answer in time`;
      }
      return null;
  }
  return null;
}

/** Where pg connects for `databaseUrl`, as far as it tells (the PG* variables fill the gaps). */
function parseTarget(databaseUrl: string): Omit<PgTarget, 'scrub'> {
  const env = process.env;
  let host = '';
  let port = '';
  let database = '';
  let user = '';
  if (databaseUrl.startsWith('/')) {
    const [dir, db] = databaseUrl.split(' ');
    host = dir;
    database = db ?? '';
  } else {
    try {
      const url = new URL(databaseUrl);
      const params = url.searchParams;
      user = params.get('user') ?? safeDecode(url.username);
      if (url.protocol === 'socket:') {
        host = safeDecode(url.pathname);
        database = params.get('db') ?? '';
      } else {
        host = params.get('host') ?? safeDecode(url.hostname).replace(/^\[(.*)\]$/, '$1');
        port = params.get('port') ?? url.port;
        database = safeDecode(url.pathname.slice(1));
      }
    } catch {
      // describeDatabaseUrlProblem says what is wrong with it
    }
  }
  host ||= env.PGHOST || 'localhost';
  port ||= env.PGPORT || '5432';
  user ||= env.PGUSER || env.USER || 'postgres';
  database ||= env.PGDATABASE || user;
  const where = host.startsWith('/') ? `socket ${host}` : `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { where, host, database, user };
}

function malformedReason(url: string): string {
  const authority = /^[^:]+:\/\/(?:.*@)?(\[[^\]]*\]|[^:/?#]*)(?::([^/?#]*))?/.exec(url);
  if (!authority) return '';
  const [, host, port] = authority;
  if (port !== undefined && port !== '') {
    if (!/^\d+$/.test(port)) return ` (port "${port}" is not a number)`;
    if (Number(port) > 65535) return ` (port ${port} is out of range)`;
  }
  if (!host) return ' (no host name)';
  return ' (bad host name or characters that need percent-encoding)';
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// ------------------------------------------------------------------ embedded (PGlite)

const FS_REASONS: Record<string, string> = {
  EEXIST: 'is not a directory',
  ENOTDIR: 'is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'is on a read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
};

function describeEmbedded(err: unknown, dataDir: string): string | null {
  const fsError = find(err, (e) => typeof e.code === 'string' && e.code in FS_REASONS && typeof e.path === 'string' && isWithin(e.path, dataDir));
  if (fsError) {
    return `cannot open the embedded database in ${dataDir}: ${fsError.path as string} ${FS_REASONS[fsError.code as string]} (check DATA_DIR)`;
  }
  if (find(err, (e) => e.message === 'PGlite failed to initialize properly')) {
    return `cannot open the embedded database in ${dataDir}: PGlite failed to start; is it a PGlite data directory of this version? (set DATA_DIR to another directory)`;
  }
  return null;
}

function isWithin(file: string, dir: string): boolean {
  const f = path.resolve(file);
  const d = path.resolve(dir);
  // mkdir -p fails on the first ancestor that is a file: a parent of dataDir counts too.
  return f === d || f.startsWith(d + path.sep) || d.startsWith(f + path.sep);
}

// ------------------------------------------------------------------ error graph

/**
 * Visits `err` and what it wraps, breadth first: `cause`, AggregateError's `errors`, and
 * Prisma's `meta.driverAdapterError`. Stops when `visit` returns true.
 */
function walk(err: unknown, visit: (e: Record<string, unknown>) => boolean): void {
  const queue: unknown[] = [err];
  const seen = new Set<unknown>();
  while (queue.length > 0 && seen.size < 50) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const e = current as Record<string, unknown>;
    if (visit(e)) return;
    queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
    const meta = e.meta as { driverAdapterError?: unknown } | undefined;
    if (meta && typeof meta === 'object') queue.push(meta.driverAdapterError);
  }
}

function find(err: unknown, test: (e: Record<string, unknown>) => boolean): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  walk(err, (e) => {
    if (!test(e)) return false;
    found = e;
    return true;
  });
  return found;
}
