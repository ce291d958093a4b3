// Restart bench: how long a process of the service, started again on a database it served
// before, takes to answer GET /health/ready with 200 while both cores are busy. One busy loop
// per core runs throughout, each in a session of its own (as independent programs are); the
// service is started in a session of its own too, as a supervisor starts it:
// - supervisor: `node <the start script's flags> dist/main.mjs`, what a supervisor restarting
//   the process runs (the bundle is already built);
// - npm start : `npm start`, its prestart (the bundle) included.
// The database is PostgreSQL (a throwaway database on the local server) by default, the
// embedded one with BENCH_ENGINE=pglite (a data directory made by a first start).
//
// baseline: a bare process on the same database under the same load: node:http and pg,
//           answering `SELECT 1` (what any server must do before its first answer).
// compare : BENCH_COMPARE_DIR, another checkout of the project (node_modules installed, dist/
//           built), e.g. the commit before a change: started alternately with this one, its
//           figures printed beside.
//
// The time is from the spawn to the first 200; the CPU is the process's own (all its threads)
// when it answered, read from /proc (supervisor runs only). On a shared machine read the
// medians side by side, not one figure.
// Env: BENCH_RUNS (5), BENCH_HOGS (one per core), BENCH_ENGINE (postgres | pglite),
//      BENCH_COMPARE_DIR, TEST_POSTGRES_URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/database.ts';
import { createTestPostgresDatabase } from '../test/support/postgres.ts';
import { envInt } from './bench-env.ts';
import { runBench } from './harness.ts';
import { reportResult } from './result.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const RUNS = envInt('BENCH_RUNS', 5);
const HOGS = envInt('BENCH_HOGS', os.availableParallelism());
const ENGINE = process.env.BENCH_ENGINE === 'pglite' ? 'pglite' : 'postgres';
const COMPARE = process.env.BENCH_COMPARE_DIR ? path.resolve(process.env.BENCH_COMPARE_DIR) : null;
const GOAL_MS = 10_000;
const TIMEOUT_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const children = new Set<ChildProcess>();

/** Spawned in a session (and process group) of its own: stopped as a group. */
function spawnSession(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; output?: boolean }) {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', options.output ? 'pipe' : 'ignore', options.output ? 'pipe' : 'ignore'] });
  children.add(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 15_000);
      await exited;
      clearTimeout(timer);
      children.delete(child);
    },
  };
}

function killAll() {
  for (const c of children) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** The environment assignments and node flags of a checkout's start script. */
function startRuntime(dir: string): { env: Record<string, string>; nodeArgs: string[] } {
  const script: string = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).scripts.start;
  const m = /^((?:[A-Za-z_]\w*=\S*\s+)*)node((?:\s+--\S+)*)\s+dist\/main\.mjs$/.exec(script.trim());
  if (!m) throw new Error(`bench: cannot read the start script of ${dir}: ${script}`);
  const env = Object.fromEntries(m[1].split(/\s+/).filter(Boolean).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
  return { env, nodeArgs: m[2].split(/\s+/).filter(Boolean) };
}

/** CPU time of a process, all its threads, in ms (utime + stime of /proc/<pid>/stat). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Polls `url()` until it answers 200: ms since `start`. */
async function firstOk(url: () => string | null, start: number, died: Promise<never>): Promise<number> {
  const poll = async () => {
    for (;;) {
      const u = url();
      if (u) {
        try {
          const res = await fetch(u, { signal: AbortSignal.timeout(5_000) });
          await res.arrayBuffer();
          if (res.status === 200) return performance.now() - start;
        } catch {
          // not listening yet
        }
      }
      if (performance.now() - start > TIMEOUT_MS) throw new Error(`no 200 from ${u ?? '(no address yet)'} within ${TIMEOUT_MS / 1000} s`);
      await sleep(10);
    }
  };
  return Promise.race([poll(), died]);
}

interface Figures {
  ms: number;
  cpu: number;
}

/** One restart of the checkout in `dir`, as `how` starts it, on `database`. */
async function restart(dir: string, how: 'supervisor' | 'npm start', database: Record<string, string>): Promise<Figures> {
  const runtime = startRuntime(dir);
  const env = { ...process.env, ...runtime.env, ...database, PORT: '0', REDIS_URL: '', LOG_LEVEL: 'info' };
  const start = performance.now();
  const p = how === 'supervisor' ? spawnSession(process.execPath, [...runtime.nodeArgs, 'dist/main.mjs'], { cwd: dir, env, output: true }) : spawnSession('npm', ['start'], { cwd: dir, env, output: true });
  const died = new Promise<never>((_, reject) => p.child.once('exit', (code) => reject(new Error(`${how} in ${dir} exited (${code}):\n${p.output().slice(-2000)}`))));
  died.catch(() => {});
  try {
    const base = () => /listening on (http:\/\/\S+)/.exec(p.output())?.[1] ?? null;
    const ms = await firstOk(() => (base() ? `${base()}/health/ready` : null), start, died);
    return { ms, cpu: how === 'supervisor' ? cpuMs(p.child.pid!) : Number.NaN };
  } finally {
    await p.stop();
  }
}

/** The bare process: node:http and pg answering `SELECT 1`, on the same database. */
async function bare(databaseUrl: string): Promise<Figures> {
  const program = `
    const http = require('node:http'); const pg = require('pg');
    const pool = new pg.Pool({ connectionString: process.env.URL });
    const server = http.createServer(async (req, res) => {
      try { await pool.query('SELECT 1'); res.writeHead(200).end('ok'); } catch { res.writeHead(503).end(); }
    }).listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));`;
  const start = performance.now();
  const p = spawnSession(process.execPath, ['-e', program], { cwd: root, env: { ...process.env, URL: databaseUrl }, output: true });
  const died = new Promise<never>((_, reject) => p.child.once('exit', (code) => reject(new Error(`the bare process exited (${code}): ${p.output()}`))));
  died.catch(() => {});
  try {
    const base = () => /listening on (http:\/\/\S+)/.exec(p.output())?.[1] ?? null;
    const ms = await firstOk(() => (base() ? `${base()}/health/ready` : null), start, died);
    return { ms, cpu: cpuMs(p.child.pid!) };
  } finally {
    await p.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const fmt = (xs: number[]) => (xs.every(Number.isNaN) ? '-' : `${median(xs).toFixed(0)} ms`);

async function main() {
  const watchdog = setTimeout(() => {
    console.error('bench: exceeded its budget; stopping');
    killAll();
    process.exit(2);
  }, (RUNS * (COMPARE ? 5 : 3) * 60 + 120) * 1000);
  watchdog.unref();

  // The database, served once already (migrated, its secrets made), as a restart finds it.
  const pg = await createTestPostgresDatabase();
  const dataDirs: string[] = [];
  const databaseFor = async (dir: string): Promise<Record<string, string>> => {
    if (ENGINE === 'postgres') return { DATABASE_URL: pg.url };
    const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'restart-bench-')), 'data');
    dataDirs.push(path.dirname(dataDir));
    await restart(dir, 'supervisor', { DATABASE_URL: '', DATA_DIR: dataDir }); // the first start makes it
    return { DATABASE_URL: '', DATA_DIR: dataDir };
  };
  try {
    if (ENGINE === 'postgres') await (await openDatabase({ databaseUrl: pg.url })).close();
    const targets: { name: string; dir: string; database: Record<string, string> }[] = [{ name: 'project', dir: root, database: await databaseFor(root) }];
    if (COMPARE) targets.push({ name: 'compare', dir: COMPARE, database: await databaseFor(COMPARE) });
    // A first start of each writes what later starts reuse (the compile cache): a restart is not a first start.
    for (const t of targets) await restart(t.dir, 'supervisor', t.database);

    console.log(`bench: restart on ${ENGINE === 'postgres' ? 'PostgreSQL' : 'the embedded database'} with ${HOGS} busy loop(s) on ${os.availableParallelism()} core(s), ${RUNS} run(s) each; load average before: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const hogs = Array.from({ length: HOGS }, () => spawnSession(process.execPath, ['-e', 'for (;;) {}'], { cwd: root, env: process.env }));
    const results = new Map<string, Figures[]>();
    const record = (key: string, f: Figures) => results.set(key, [...(results.get(key) ?? []), f]);
    try {
      await sleep(1_000);
      for (let i = 0; i < RUNS; i++) {
        const order = i % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) {
          for (const how of ['supervisor', 'npm start'] as const) {
            const f = await restart(t.dir, how, t.database);
            record(`${t.name} ${how}`, f);
            console.log(`  run ${i + 1} ${t.name.padEnd(7)} ${how.padEnd(10)}: ready ${f.ms.toFixed(0)} ms${Number.isNaN(f.cpu) ? '' : `, CPU ${f.cpu.toFixed(0)} ms`}`);
          }
        }
        if (ENGINE === 'postgres') {
          const f = await bare(pg.url);
          record('bare', f);
          console.log(`  run ${i + 1} bare              : ready ${f.ms.toFixed(0)} ms, CPU ${f.cpu.toFixed(0)} ms`);
        }
      }
    } finally {
      await Promise.all(hogs.map((h) => h.stop('SIGKILL')));
    }

    console.log('');
    for (const [key, fs] of results) {
      console.log(`${key.padEnd(20)}: ready median ${fmt(fs.map((f) => f.ms))} (max ${Math.max(...fs.map((f) => f.ms)).toFixed(0)} ms), CPU median ${fmt(fs.map((f) => f.cpu))}`);
    }
    const supervisor = results.get('project supervisor')!.map((f) => f.ms);
    const npm = results.get('project npm start')!.map((f) => f.ms);
    const bareMs = results.get('bare')?.map((f) => f.ms);
    reportResult({
      target: `restart on ${ENGINE === 'postgres' ? 'PostgreSQL' : 'the embedded database'} with both cores busy, to /health/ready`,
      project: `${median(supervisor).toFixed(0)} ms (npm start ${median(npm).toFixed(0)} ms)`,
      baseline: bareMs ? `${median(bareMs).toFixed(0)} ms` : '-',
      ratio: bareMs ? `${(median(supervisor) / median(bareMs)).toFixed(1)}x` : '-',
      goal: `<= ${GOAL_MS} ms`,
      meets: Math.max(...supervisor, ...npm) <= GOAL_MS,
    });
  } finally {
    await pg.drop();
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

runBench(main);
