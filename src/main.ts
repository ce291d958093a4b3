// `npm start` runs this with these settings (package.json), each measured with 1,000 WebSocket
// subscribers (npm run bench:subscribers) and under load (npm run bench):
// - MALLOC_ARENA_MAX=2: glibc gives each thread that allocates its own malloc arena (up to 8
//   per core) and keeps each arena's high-water mark resident; V8's background threads left
//   40-60 MB of freed memory spread over several arenas.
// - MALLOC_TRIM_THRESHOLD_ / MALLOC_MMAP_THRESHOLD_ at 128 KB: by default glibc raises both
//   after the first large blocks are freed (start-up's), then keeps tens of MB of freed heap
//   resident; fixed, large blocks are mapped and returned on free (none on a request's path).
// - --max-semi-space-size=4: V8's young generation grows to 2 x 16 MB during start-up and
//   stays resident though it holds next to nothing between requests; capped at 2 x 4 MB.
// - --wasm-lazy-compilation: the WebAssembly modules (Prisma's query compiler, PGlite) compile
//   each function when it is first called, not all of them at load; most are never called.
// Together about 50 MB less RSS (idle 170-200 MB, 1,000 subscribers 206-239 MB, was 265-282),
// and no measurable change in the API's requests per second.
// The benchmarks read these settings from the start script (bench/harness.ts).
import type { AddressInfo } from 'node:net';
import { loadConfig, type AppConfig } from './config.ts';
import { describeDatabaseError } from './db/connection-errors.ts';
import { openDatabase, type Database } from './db/database.ts';
import { seedDemoBusiness } from './seed.ts';
import type { App } from './server.ts';
import { log } from './log.ts';

/** How long SIGTERM waits for requests in flight before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/** `npm start`: open (and migrate) the database, seed a demo business if empty, serve. */
async function main() {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (err) {
    return fail((err as Error).message, 2);
  }
  // The server's modules (most of the start-up's JavaScript) load while the database opens: on
  // a fresh directory that is PGlite's initdb, and the transpiling runs beside it.
  const serverModule = import('./server.ts');
  serverModule.catch(() => {}); // reported where awaited
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (err) {
    const line = describeDatabaseError(err, { databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    if (line) return fail(line, 1);
    throw err;
  }
  const { buildApp, PortInUseError } = await serverModule;
  let app: App | null = null;
  try {
    const seeded = await seedDemoBusiness(db.prisma);
    app = await buildApp({ db, config });
    const server = await app.listen(config.port, config.host);
    announce(config, db, (server.address() as AddressInfo).port, seeded);
  } catch (err) {
    // Whatever stops the start (a port in use), the embedded database's lock is released.
    await app?.close({ graceMs: 0 }).catch(() => {});
    await db.close().catch(() => {});
    if (err instanceof PortInUseError) return fail(err.message, 1);
    throw err;
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, `${signal}: finishing requests in flight (at most ${SHUTDOWN_GRACE_MS / 1000} s), then stopping`);
    await app!.close({ graceMs: SHUTDOWN_GRACE_MS });
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

function announce(config: AppConfig, db: Database, port: number, seeded: Awaited<ReturnType<typeof seedDemoBusiness>>) {
  const base = `http://${config.host}:${port}`;
  log.info({ url: base, database: db.kind }, 'listening');
  console.log(`Rental API listening on ${base} (${db.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`);
  console.log(`  REST:    ${base}/v1   OpenAPI: ${base}/v1/openapi.json`);
  console.log(`  GraphQL: ${base}/graphql   Health: ${base}/health/ready`);
  if (seeded) {
    console.log('\nSeeded the demo business "Demo Rentals". Its keys (shown once; keep them):');
    console.log(JSON.stringify(seeded, null, 2));
    console.log(`\nTry it:\n  curl -s ${base}/v1/vehicles -H "Authorization: Bearer ${seeded.test_secret_key}"\n`);
  } else {
    console.log('\nThe database already holds a business; list its keys with: npm run admin -- key list --business <id>');
  }
}

/** One clear line and a non-zero exit; never a stack trace for a problem of the setup. */
function fail(line: string, code: number): never {
  console.error(line);
  process.exit(code);
}

main().catch((err) => {
  log.fatal({ err }, 'the service stopped');
  process.exit(1);
});
