// A throwaway database on the local PostgreSQL server for one test file, so parallel and
// repeated runs never see each other's data.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const BASE_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export async function createTestPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  // Unique across processes and runs; lower case so it needs no quoting elsewhere.
  const name = `test_${Date.now().toString(36)}_${process.pid}_${randomBytes(3).toString('hex')}`;
  await withServer((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop: () =>
      (dropped ??= withServer(async (client) => {
        // A pool the test forgot to close would otherwise make DROP DATABASE fail.
        await client.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        await client.query(`DROP DATABASE IF EXISTS "${name}"`);
      })),
  };
}

async function withServer(fn: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: BASE_URL });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}

/** The backends now waiting for a lock that backend `pid` holds (PostgreSQL's pg_blocking_pids). */
export async function backendsWaitingOn(pool: pg.Pool, pid: number): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
  return rows.map((r) => r.pid);
}
