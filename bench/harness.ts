// What the HTTP benchmarks share: servers in child processes, their CPU time, the database's
// transaction count, and a watchdog that bounds a whole run.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Options as LoadOptions } from 'autocannon';
import { build } from 'esbuild';
import pg from 'pg';

export const benchDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(benchDir, '..');

export interface ChildServer {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (100 Hz)
}

/** The environment assignments and node flags of `npm start` (package.json scripts.start). */
export async function startScriptRuntime(): Promise<{ env: Record<string, string>; nodeArgs: string[] }> {
  const script: string = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).scripts.start;
  const m = /^((?:[A-Za-z_]\w*=\S*\s+)*)node((?:\s+--\S+)*)\s+dist\/main\.mjs$/.exec(script.trim());
  if (!m) throw new Error(`bench: cannot read the environment and node flags of the start script: ${script}`);
  const env = Object.fromEntries(m[1].split(/\s+/).filter(Boolean).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
  return { env, nodeArgs: m[2].split(/\s+/).filter(Boolean) };
}

/**
 * Start a server script of bench/ in a child node (tsx loader) on `databaseUrl`, without Redis;
 * resolves once it prints READY <port>. With `cpuProfDir`, one CPU profile per thread is written
 * under <cpuProfDir>/<label>/. With `root`, the script of another checkout of the project (the
 * commit before a change, say: node_modules installed), bundled and run there.
 */
export async function startServer(label: string, script: string, databaseUrl: string, options: { cpuProfDir?: string; env?: Record<string, string>; root?: string } = {}): Promise<ChildServer> {
  // Both sides run with `npm start`'s environment and node flags, so the ratio compares code.
  const runtime = await startScriptRuntime();
  // The access log (a JSON line per request, src/log.ts) would print every request of a run:
  // off unless LOG_LEVEL asks for it (LOG_LEVEL=info measures the service with its log lines).
  const env: NodeJS.ProcessEnv = { LOG_LEVEL: 'warn', ...process.env, ...runtime.env, ...options.env, DATABASE_URL: databaseUrl, PORT: '0', NODE_ENV: 'production' };
  delete env.REDIS_URL;
  const nodeArgs = [...runtime.nodeArgs, ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options.cpuProfDir, label)}`] : [])];
  const checkout = options.root ?? root;
  return startChildServer(await bundled(path.join(checkout, 'bench', script)), env, nodeArgs, checkout);
}

/**
 * A server script bundled as `npm start` bundles the service (scripts/build.mjs): plain
 * JavaScript, run without the TypeScript loader, so each side is measured as it would run.
 */
export async function bundled(script: string): Promise<string> {
  const name = path.basename(script, '.ts');
  // Split as scripts/build.mjs splits: a module imported lazily stays out of the start-up.
  await build({ entryPoints: { [name]: script }, outdir: path.join(path.dirname(script), '.build'), outExtension: { '.js': '.mjs' }, splitting: true, chunkNames: 'chunks/[name]-[hash]', bundle: true, platform: 'node', format: 'esm', target: 'node24', packages: 'external', sourcemap: true, sourcesContent: false, logLevel: 'warning' });
  return path.join(path.dirname(script), '.build', `${name}.mjs`);
}

/** Start a script in a child node (TypeScript through the tsx loader); resolves once it prints "READY <port>". */
export function startChildServer(script: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = [], cwd = root): Promise<ChildServer> {
  const label = path.basename(script);
  const loader = script.endsWith('.mjs') ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...loader, ...nodeArgs, script], { cwd, env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { children.delete(child); resolve(); }));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise<ChildServer>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => { void stop(); reject(new Error(`${label} did not start within 60 s`)); }, 60_000);
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
    child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`${label} exited before READY (code ${code}, signal ${signal})`)); });
  });
}

/** Median and 95th percentile of a sample. */
export function percentiles(xs: number[]): { p50: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
  return { p50: at(0.5), p95: at(0.95) };
}

/** Committed transactions of a database so far (statements outside a transaction count one each). */
export async function committedTransactions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

/** Stop the whole run after `budgetMs` (children killed, `cleanup` run); returns the disarm. */
export function watchdog(label: string, budgetMs: number, cleanup: () => Promise<void>): () => void {
  const timer = setTimeout(() => {
    console.error(`${label}: exceeded its ${budgetMs / 1000} s budget; stopping`);
    killChildren();
    void cleanup().finally(() => process.exit(2));
  }, budgetMs);
  timer.unref();
  return () => clearTimeout(timer);
}

export function killChildren(): void {
  for (const c of children) c.kill('SIGKILL');
}

/** Run `main`, then exit (the children and pools must not keep the process alive). */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(),
    (err) => {
      console.error(err);
      killChildren();
      process.exit(1);
    },
  );
}

export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** The server's own CPU time per request: it varies far less than throughput on a shared machine. */
  cpuUsPerRequest: number;
  xactsPerRequest: number;
}

export interface LoadRun {
  label: string;
  script: string;
  databaseUrl: string;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  cpuProfDir?: string;
  env?: Record<string, string>;
  /** Another checkout of the project whose `script` runs instead of this one's (BENCH_COMPARE_DIR). */
  root?: string;
  /** Checks the server answers right before it is timed (throws if not). */
  probe(baseUrl: string): Promise<void>;
  /** The load: autocannon's options for this server. */
  load(baseUrl: string): Omit<LoadOptions, 'duration' | 'connections'>;
  /**
   * Requests made so far (a running count), where the load counts them: the server also
   * completes those still in flight when a run stops, which autocannon does not count.
   */
  sent?: () => number;
}

/** Start the server, probe it, warm it up, then load it for `seconds` and take its figures. */
export async function measureLoad(run: LoadRun): Promise<LoadFigures> {
  const xactsBefore = await committedTransactions(run.databaseUrl);
  const sentBefore = run.sent?.() ?? 0;
  const server = await startServer(run.label, run.script, run.databaseUrl, { cpuProfDir: run.cpuProfDir, env: run.env, root: run.root });
  let figures: Omit<LoadFigures, 'xactsPerRequest'>;
  let requests = 0;
  try {
    const baseUrl = `http://127.0.0.1:${server.port}`;
    await run.probe(baseUrl);
    const warm = await autocannon({ ...run.load(baseUrl), connections: run.connections, duration: run.warmupSeconds });
    const cpuBefore = await cpuSeconds(server.pid);
    const r = await autocannon({ ...run.load(baseUrl), connections: run.connections, duration: run.seconds });
    const cpu = (await cpuSeconds(server.pid)) - cpuBefore;
    requests = run.sent ? run.sent() - sentBefore : 1 + warm.requests.total + r.requests.total;
    figures = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, cpuUsPerRequest: (cpu * 1e6) / r.requests.total };
  } finally {
    await server.stop();
  }
  // The server's backends flush their statistics when they exit, i.e. by now. The count
  // includes the server's start-up and the probe: a handful over many thousands.
  const xacts = (await committedTransactions(run.databaseUrl)) - xactsBefore;
  return { ...figures, xactsPerRequest: xacts / requests };
}

/**
 * Rounds alternate the order of the sides (the first round in the order given, the next
 * reversed); the figures of each side are averaged, and each side other than the baseline is
 * compared with it. `sides` defaults to the baseline and the project; a bench may add another
 * (the project of another checkout, BENCH_COMPARE_DIR).
 */
export async function compareLoad<S extends string = 'project' | 'baseline'>(
  title: string,
  rounds: number,
  runOf: (side: S) => LoadRun,
  sides: readonly S[] = ['baseline', 'project'] as unknown as S[],
): Promise<Record<S, LoadFigures & { bad: number }>> {
  const results = Object.fromEntries(sides.map((side) => [side, [] as LoadFigures[]])) as Record<S, LoadFigures[]>;
  console.log(title);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const f = await measureLoad(runOf(side));
      results[side].push(f);
      console.log(
        `  round ${round + 1} ${side.padEnd(8)} ${f.rps.toFixed(0).padStart(6)} req/s  p50 ${f.p50} ms  p99 ${f.p99} ms  ${f.cpuUsPerRequest.toFixed(0)} µs CPU/request  (${f.total} requests, non-2xx ${f.non2xx}, errors ${f.errors}, timeouts ${f.timeouts}; ${f.xactsPerRequest.toFixed(2)} db transactions/request)`,
      );
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const summary = (fs: LoadFigures[]) => ({
    rps: mean(fs.map((f) => f.rps)),
    p50: mean(fs.map((f) => f.p50)),
    p99: mean(fs.map((f) => f.p99)),
    total: fs.reduce((a, f) => a + f.total, 0),
    non2xx: fs.reduce((a, f) => a + f.non2xx, 0),
    errors: fs.reduce((a, f) => a + f.errors, 0),
    timeouts: fs.reduce((a, f) => a + f.timeouts, 0),
    cpuUsPerRequest: mean(fs.map((f) => f.cpuUsPerRequest)),
    xactsPerRequest: mean(fs.map((f) => f.xactsPerRequest)),
    bad: fs.reduce((a, f) => a + f.non2xx + f.errors + f.timeouts, 0),
  });
  const figures = Object.fromEntries(sides.map((side) => [side, summary(results[side])])) as Record<S, LoadFigures & { bad: number }>;
  const width = Math.max(...sides.map((side) => side.length));
  console.log('');
  for (const side of sides) {
    const f = figures[side];
    console.log(`${side.padEnd(width)}: ${f.rps.toFixed(0)} req/s, p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, ${f.cpuUsPerRequest.toFixed(0)} µs CPU/request`);
  }
  const b = figures['baseline' as S];
  for (const side of sides) {
    if (side === 'baseline' || !b) continue;
    const p = figures[side];
    console.log(`ratio ${side}/baseline: throughput ${(p.rps / b.rps).toFixed(3)}, p50 latency ${(p.p50 / b.p50).toFixed(2)}x, p99 latency ${(p.p99 / b.p99).toFixed(2)}x, CPU per request ${(p.cpuUsPerRequest / b.cpuUsPerRequest).toFixed(2)}x`);
  }
  const bad = sides.filter((side) => figures[side].bad > 0);
  if (bad.length) {
    console.error(`bench: failed responses during the runs (${bad.map((side) => `${side} ${figures[side].bad}`).join(', ')})`);
    process.exitCode = 1;
  }
  return figures;
}
