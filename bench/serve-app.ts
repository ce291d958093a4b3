// Child process: the project server (buildApp over openDatabase) for the benches.
// Env: DATABASE_URL (required), PORT (0 = any free port), BENCH_VIA_PIPELINE (1: every request
// through yoga's pipeline, App.handle behind @whatwg-node/server's Node adapter, instead of the
// Node server's own path: what that path saves), HOLD_SWEEP_MS and RETENTION_SWEEP_MS (0: no maintenance jobs, no retention pass). Prints "READY <port>" when listening.
import { createServer } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { buildApp } from '../src/server.ts';
import { stopOnSignal } from './bare-http.ts';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
// Rate limits raised out of the way; no hold sweeper, no retention pass; in-memory limiter (no Redis).
const config = loadConfig({ ...process.env, RATE_LIMIT_TEST: '1000000000', RATE_LIMIT_LIVE: '1000000000', HOLD_SWEEP_MS: process.env.HOLD_SWEEP_MS ?? '0', RETENTION_SWEEP_MS: process.env.RETENTION_SWEEP_MS ?? '0', REDIS_URL: '' });
// As npm start opens it: migrations checked (nothing is pending: the bench migrated the database).
const db = await openDatabase({ databaseUrl });
const app = await buildApp({ db, config });
const server =
  process.env.BENCH_VIA_PIPELINE === '1'
    ? await new Promise<ReturnType<typeof createServer>>((resolve) => {
        const s = createServer(createServerAdapter((request: Request) => app.handle(request)));
        s.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => resolve(s));
      })
    : await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
const address = server.address();
process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : ''}\n`);

stopOnSignal(async () => {
  await app.close().catch(() => {});
  await db.close();
});
