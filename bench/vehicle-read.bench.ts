// Vehicle read bench: GET /v1/vehicles/:id through the project server against a bare
// node:http + pg baseline doing the same work (key check, one SELECT, snake_case JSON).
//
// Each server runs in its own child process; autocannon drives it from this process over
// loopback, one server at a time. On these shared 2-core machines read the ratio, not the
// absolute figures, and the CPU per request beside them, which varies least.
//
// Env: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (10),
//      BENCH_ROUNDS (1; rounds alternate the order), BENCH_CPU_PROF (a directory: the
//      children run with --cpu-prof and write their profiles to <dir>/project, <dir>/baseline),
//      TEST_POSTGRES_URL (server to create the throwaway database on), DATABASE_POOL_SIZE.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { createTestPostgresDatabase } from '../test/support/postgres.ts';
import { envInt } from './bench-env.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const SECONDS = envInt('BENCH_SECONDS', 10);
const WARMUP = envInt('BENCH_WARMUP_SECONDS', 2);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const ROUNDS = envInt('BENCH_ROUNDS', 1);
const CPU_PROF = process.env.BENCH_CPU_PROF || '';

type Target = 'project' | 'baseline';
const SCRIPTS: Record<Target, string> = { project: path.join(here, 'serve-app.ts'), baseline: path.join(here, 'serve-bare.ts') };

interface Server {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (100 Hz)
}

const children = new Set<ChildProcess>();

/** Start a server script in a child node (tsx loader); resolves once it prints READY <port>. */
function startServer(target: Target, databaseUrl: string): Promise<Server> {
  const args = ['--import', 'tsx'];
  // One profile per thread (the tsx loader hooks run on a thread of their own), under <dir>/<target>/.
  if (CPU_PROF) args.push('--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF, target)}`);
  args.push(SCRIPTS[target]);
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', NODE_ENV: 'production' };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { children.delete(child); resolve(); }));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise<Server>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => { void stop(); reject(new Error(`${target} server did not start within 60 s`)); }, 60_000);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = /READY (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.pipe(process.stdout);
        resolve({ port: Number(m[1]), pid: child.pid!, stop });
      }
    });
    child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`${target} server exited before READY (code ${code}, signal ${signal})`)); });
  });
}

interface Figures { rps: number; p50: number; p99: number; total: number; non2xx: number; errors: number; timeouts: number; xactsPerRequest: number; cpuUsPerRequest: number }

/** Committed transactions of the bench database so far (statements outside a transaction count one each). */
async function committedTransactions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

async function measure(target: Target, databaseUrl: string, vehicleId: string, key: string): Promise<Figures> {
  const xactsBefore = await committedTransactions(databaseUrl);
  const server = await startServer(target, databaseUrl);
  let requests = 0;
  let figures: Omit<Figures, 'xactsPerRequest'>;
  let cpu = 0;
  try {
    const url = `http://127.0.0.1:${server.port}/v1/vehicles/${vehicleId}`;
    const headers = { authorization: `Bearer ${key}` };
    // It must answer 200 with the vehicle before it is timed.
    const res = await fetch(url, { headers });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200 || body.id !== vehicleId || body.daily_rate_cents !== 8900) {
      throw new Error(`${target} answered ${res.status} ${JSON.stringify(body)} instead of the vehicle`);
    }
    shapes[target] = Object.keys(body);
    const warm = await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP }); // warm-up, discarded
    const cpuBefore = await cpuSeconds(server.pid);
    const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
    cpu = (await cpuSeconds(server.pid)) - cpuBefore;
    requests = 1 + warm.requests.total + r.requests.total;
    // CPU per request varies far less than throughput on a shared machine: it is the server's own work.
    figures = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, cpuUsPerRequest: (cpu * 1e6) / r.requests.total };
  } finally {
    await server.stop();
  }
  // The server's backends flush their statistics when they exit, i.e. by now. The count
  // includes the server's start-up and this probe's own query: a handful over many thousands.
  const xacts = (await committedTransactions(databaseUrl)) - xactsBefore;
  return { ...figures, xactsPerRequest: xacts / requests };
}

const shapes: Partial<Record<Target, string[]>> = {};

async function main() {
  const database = await createTestPostgresDatabase();
  // Bound the whole run: server start-ups, the runs, and slack.
  const budgetMs = (ROUNDS * 2 * (SECONDS + WARMUP + 30) + 120) * 1000;
  const watchdog = setTimeout(() => {
    console.error(`bench: exceeded its ${budgetMs / 1000} s budget; stopping`);
    for (const c of children) c.kill('SIGKILL');
    void database.drop().finally(() => process.exit(2));
  }, budgetMs);
  watchdog.unref();
  try {
    // Seed: migrations (openDatabase applies them), a business with its keys, one vehicle.
    const db = await openDatabase({ databaseUrl: database.url });
    let key: string;
    let vehicleId: string;
    try {
      const business = await createBusiness(db.prisma, { name: 'Bench Rentals' });
      key = business.test_secret_key;
      const vehicle = await db.prisma.vehicle.create({
        data: {
          id: newId('vehicle'),
          businessId: business.business_id,
          livemode: false,
          name: 'Bench Sedan',
          make: 'Toyota',
          model: 'Camry',
          year: 2022,
          currency: 'usd',
          dailyRateCents: 8900,
          depositCents: 25000,
          includedMiles: 200,
          extraMileFeeCents: 35,
          unlimitedMilesDailyCents: 2500,
          location: { city: 'Austin', region: 'TX', country: 'US' },
          deliveryOptions: [{ kind: 'airport', fee_cents: 3000 }],
          photos: [{ slot: 'front', url: 'https://example.com/front.jpg' }],
          features: ['bluetooth', 'backup_camera'],
          metadata: { fleet: 'bench' },
        },
      });
      vehicleId = vehicle.id;
    } finally {
      await db.close();
    }

    console.log(`bench: GET /v1/vehicles/:id, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per run, ${ROUNDS} round(s), pool ${process.env.DATABASE_POOL_SIZE ?? 20}`);
    const results: Record<Target, Figures[]> = { project: [], baseline: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: Target[] = round % 2 === 0 ? ['baseline', 'project'] : ['project', 'baseline'];
      for (const target of order) {
        const f = await measure(target, database.url, vehicleId, key);
        results[target].push(f);
        console.log(
          `  round ${round + 1} ${target.padEnd(8)} ${f.rps.toFixed(0).padStart(6)} req/s  p50 ${f.p50} ms  p99 ${f.p99} ms  ${f.cpuUsPerRequest.toFixed(0)} µs CPU/request  (${f.total} requests, non-2xx ${f.non2xx}, errors ${f.errors}, timeouts ${f.timeouts}; ${f.xactsPerRequest.toFixed(2)} db transactions/request)`,
        );
      }
    }

    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const summary = (t: Target) => ({
      rps: mean(results[t].map((f) => f.rps)),
      p50: mean(results[t].map((f) => f.p50)),
      p99: mean(results[t].map((f) => f.p99)),
      cpu: mean(results[t].map((f) => f.cpuUsPerRequest)),
      bad: results[t].reduce((a, f) => a + f.non2xx + f.errors + f.timeouts, 0),
    });
    const p = summary('project');
    const b = summary('baseline');
    console.log('');
    console.log(`project : ${p.rps.toFixed(0)} req/s, p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms, ${p.cpu.toFixed(0)} µs CPU/request`);
    console.log(`baseline: ${b.rps.toFixed(0)} req/s, p50 ${b.p50.toFixed(1)} ms, p99 ${b.p99.toFixed(1)} ms, ${b.cpu.toFixed(0)} µs CPU/request`);
    console.log(`ratio project/baseline: throughput ${(p.rps / b.rps).toFixed(3)}, p50 latency ${(p.p50 / b.p50).toFixed(2)}x, p99 latency ${(p.p99 / b.p99).toFixed(2)}x, CPU per request ${(p.cpu / b.cpu).toFixed(2)}x`);
    const extra = (shapes.project ?? []).filter((k) => !(shapes.baseline ?? []).includes(k));
    const missing = (shapes.baseline ?? []).filter((k) => !(shapes.project ?? []).includes(k));
    if (extra.length || missing.length) console.log(`note: response keys differ (project only: ${extra.join(', ') || '-'}; baseline only: ${missing.join(', ') || '-'})`);
    if (p.bad || b.bad) {
      console.error(`bench: failed responses during the runs (project ${p.bad}, baseline ${b.bad})`);
      process.exitCode = 1;
    }
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await database.drop();
    clearTimeout(watchdog);
  }
}

main().then(
  () => process.exit(),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
