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
import { parseArgs } from 'node:util';
import { loadConfig, type AppConfig, type DemoSeedSetting } from './config.ts';
import { describeDatabaseError } from './db/connection-errors.ts';
import type { Database } from './db/database.ts';
import type { SandboxBusiness } from './platform/businesses.ts';
import { DEMO_BUSINESS_NAME, demoSeedWanted, seedDemoBusiness } from './seed.ts';
import type { App } from './server.ts';
import { log } from './log.ts';
import { keepCompiledCode, prepareStartup } from './startup.ts';

/** How long SIGTERM waits for requests in flight before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/** What start-up did about the demo business. */
type DemoOutcome = { seeded: SandboxBusiness } | { seeded: null; databaseEmpty: boolean; setting: DemoSeedSetting };

/**
 * `npm start [-- --demo]`: open (and migrate) the database, seed the demo business into it if
 * it is empty and seeding is wanted there (demoSeedWanted), serve.
 */
async function main() {
  // Before the modules that are most of the start-up (the database's, the server's) load.
  prepareStartup();
  startupStep('modules');
  let config: AppConfig;
  let demoFlag: boolean;
  try {
    config = loadConfig();
    demoFlag = startArgs(process.argv.slice(2)).demo;
  } catch (err) {
    return fail((err as Error).message, 2);
  }
  // The server's modules (most of the start-up's JavaScript) load while the database opens: on
  // a fresh directory that is PGlite's initdb, and the transpiling runs beside it.
  const serverModule = import('./server.ts');
  serverModule.catch(() => {}); // reported where awaited
  let db: Database;
  try {
    const { openDatabase } = await import('./db/database.ts');
    db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    startupStep('database');
  } catch (err) {
    const line = describeDatabaseError(err, { databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    if (line) return fail(line, 1);
    throw err;
  }
  const { buildApp, PortInUseError } = await serverModule;
  startupStep('server modules');
  let app: App | null = null;
  try {
    const demo = await startDemo(db, demoFlag ? 'on' : config.seedDemo);
    startupStep('demo business');
    app = await buildApp({ db, config });
    startupStep('app');
    const server = await app.listen(config.port, config.host);
    startupStep('listen');
    announce(config, db, (server.address() as AddressInfo).port, demo);
    keepCompiledCode();
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

/**
 * Where start-up goes, at debug level (LOG_LEVEL=debug; `npm run bench:startup` reads it): each
 * step's wall time and the process's CPU time in it (all threads), since the process began.
 */
let lastStep = { at: 0, cpu: 0 };
function startupStep(step: string): void {
  const at = performance.now();
  const { user, system } = process.cpuUsage();
  const cpu = (user + system) / 1000;
  log.debug({ step, ms: Math.round(at - lastStep.at), cpu_ms: Math.round(cpu - lastStep.cpu), since_start_ms: Math.round(at) }, 'start-up');
  lastStep = { at, cpu };
}

/** The command line of `npm start`: `--demo` only; anything else is refused (exit 2). */
function startArgs(args: string[]): { demo: boolean } {
  try {
    const { values } = parseArgs({ args, options: { demo: { type: 'boolean' } }, strict: true, allowPositionals: false });
    return { demo: values.demo === true };
  } catch (err) {
    throw new Error(`npm start: ${(err as Error).message.split('\n')[0]}; the one flag it takes is --demo (seed the demo business into an empty PostgreSQL database too)`);
  }
}

async function startDemo(db: Database, setting: DemoSeedSetting): Promise<DemoOutcome> {
  const seeded = demoSeedWanted(setting, db.kind) ? await seedDemoBusiness(db.prisma) : null;
  if (seeded) {
    log.info({ business_id: seeded.business_id }, 'seeded the demo business (sandbox keys and fleet only)');
    return { seeded };
  }
  return { seeded: null, databaseEmpty: (await db.prisma.business.count()) === 0, setting };
}

function announce(config: AppConfig, db: Database, port: number, demo: DemoOutcome) {
  const base = `http://${config.host}:${port}`;
  log.info({ url: base, database: db.kind }, 'listening');
  console.log(`Rental API listening on ${base} (${db.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`);
  console.log(`  REST:    ${base}/v1   OpenAPI: ${base}/v1/openapi.json`);
  console.log(`  GraphQL: ${base}/graphql   Health: ${base}/health/ready`);
  if (demo.seeded) {
    // Test (sandbox) keys only: the demo has no live keys to print.
    console.log(`\nSeeded the demo business "${DEMO_BUSINESS_NAME}" with test keys and a sandbox fleet (nothing in live mode). Its keys (shown once; keep them):`);
    console.log(JSON.stringify(demo.seeded, null, 2));
    console.log(`\nTry it:\n  curl -s ${base}/v1/vehicles -H "Authorization: Bearer ${demo.seeded.test_secret_key}"\n`);
  } else if (!demo.databaseEmpty) {
    console.log('\nThe database already holds a business; list its keys with: npm run admin -- key list --business <id>');
  } else {
    console.log(`\n${emptyDatabaseHint(db.kind, demo.setting)}`);
  }
}

/** One line: why an empty database was not seeded, and how to get a business into it. */
function emptyDatabaseHint(kind: Database['kind'], setting: DemoSeedSetting): string {
  const create = 'npm run admin -- business create --name "Your Rentals"';
  if (setting === 'off') {
    return `The database holds no business and SEED_DEMO=0 turns the demo off; create one with: ${create}${kind === 'pglite' ? ' (with the server stopped: the embedded database admits one process)' : ''}`;
  }
  return `The PostgreSQL database (DATABASE_URL) holds no business; the demo business is seeded into it only when asked: npm start -- --demo (or SEED_DEMO=1), or create your own with: ${create}`;
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
