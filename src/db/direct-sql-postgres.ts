// PostgreSQL's side of the tenant scope's direct SQL (direct-sql.ts): the pool Prisma's
// adapter draws on, its values read as Prisma reads them, and the connection of each Prisma
// interactive transaction made known to the direct statements of that transaction.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { FROM_DATABASE_POOL } from './connection-errors.ts';
import { directSql, readTimestamp, TIMESTAMP_OID, type DirectSql, type SqlExecutor } from './direct-sql.ts';

const TYPES = { getTypeParser: (oid: number, format?: string) => (oid === TIMESTAMP_OID ? readTimestamp : pg.types.getTypeParser(oid, format as never)) };

/** The connection a Prisma transaction begun in this async context draws from the pool. */
const transactionConnection = new AsyncLocalStorage<{ client?: pg.PoolClient }>();

/**
 * A pool whose connections, when a Prisma interactive transaction begun through
 * `DirectSql.transaction` takes one (the driver adapter asks the pool it was given), are
 * made known to that transaction's direct SQL.
 */
export function directSqlPool(config: pg.PoolConfig): pg.Pool {
  // Every statement on the pool reads values as Prisma does (TYPES): the tenant scope's, the
  // event relay's and the webhook worker's. Set once here rather than with each statement (pg
  // copies a statement's settings); Prisma's adapter passes its own parsers with its queries.
  const pool = new pg.Pool({ ...config, types: TYPES as never });
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  pool.connect = ((callback?: unknown) => {
    if (typeof callback === 'function') {
      // pool.query's own checkout
      return connect((err: Error | undefined, ...rest: unknown[]) => (callback as (...args: unknown[]) => void)(err && fromPool(err), ...rest));
    }
    const slot = transactionConnection.getStore();
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      if (slot && !slot.client) slot.client = client;
      return client;
    }, (err: unknown) => Promise.reject(fromPool(err)));
  }) as typeof pool.connect;
  return pool;
}

/**
 * `err`, marked as the database's: a refused or reset socket here is the database's, which the
 * edge answers 503 (isDatabaseUnavailable), while the same codes elsewhere mean other things.
 */
function fromPool(err: unknown): unknown {
  if (typeof err === 'object' && err !== null && Object.isExtensible(err)) Object.defineProperty(err, FROM_DATABASE_POOL, { value: true });
  return err;
}

/** The tenant scope's direct SQL on `pool` (made by `directSqlPool`), inside Prisma's transactions on their own connection. */
export function postgresDirectSql(pool: pg.Pool): DirectSql {
  const on = (client: pg.Pool | pg.PoolClient): SqlExecutor => async ({ text, values }) => {
    const result = await client.query(text, values).catch((err: unknown) => Promise.reject(fromPool(err)));
    return { rows: result.rows as Record<string, unknown>[], count: result.rowCount ?? 0 };
  };
  return directSql(on(pool), (begin) =>
    transactionConnection.run({}, () =>
      begin(() => {
        const client = transactionConnection.getStore()?.client;
        return client ? on(client) : undefined;
      }),
    ),
  );
}
