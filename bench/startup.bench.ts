// Startup bench: time from spawning what `npm start` runs (its prestart, `node
// scripts/build.mjs`, then `node dist/main.mjs`, without npm's own start-up) on a FRESH empty
// DATA_DIR (embedded PGlite, no DATABASE_URL) to the first successful answer: GET
// /health/ready answering 200 (database reachable, no migration pending), and then an
// authenticated GET /v1/vehicles with the demo key main.ts prints.
//
// baseline: bench/startup-bare.ts (through the tsx loader: one small file): PGlite opened on a fresh
//           directory, `SELECT 1` answered over node:http.
// phases  : bench/startup-phases.ts does main.ts's steps one at a time and times each (PGlite's
//           open, the migrations, the seed, the server's modules, buildApp, the first answer).
//
// Each run is a fresh process on a fresh directory; runs alternate the order. On these shared
// 2-core machines read the ratio and the repeated figures, not one number.
// Env: BENCH_RUNS (3).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { envInt } from './bench-env.ts';
import { reportResult } from './result.ts';
import { runBench, startScriptRuntime } from './harness.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const TSX = path.join(root, 'node_modules/.bin/tsx');
const RUNS = envInt('BENCH_RUNS', 3);
const GOAL_MS = 5_000;

const children = new Set<ChildProcess>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function run(args: string[], env: NodeJS.ProcessEnv, command = TSX) {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { children.delete(child); resolve(code); }));
  return {
    child,
    output: () => out,
    errors: () => err,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `url` until it answers 200; returns when it did (ms since `start`). */
async function firstOk(url: () => string | null, start: number, headers: Record<string, string> = {}, timeoutMs = 120_000): Promise<number> {
  for (;;) {
    const u = url();
    if (u) {
      try {
        const res = await fetch(u, { headers });
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - start;
      } catch {
        // not listening yet
      }
    }
    if (performance.now() - start > timeoutMs) throw new Error(`no 200 from ${u ?? '(no port yet)'} within ${timeoutMs / 1000} s`);
    await sleep(10);
  }
}

async function project(): Promise<{ ready: number; authed: number }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'startup-bench-'));
  const start = performance.now();
  // What `npm start` runs: its prestart (the bundle), then the bundled server.
  const built = await run(['scripts/build.mjs'], {}, process.execPath).exited;
  if (built !== 0) throw new Error(`the build (prestart) failed with exit code ${built}`);
  const runtime = await startScriptRuntime();
  const p = run([...runtime.nodeArgs, 'dist/main.mjs'], { ...runtime.env, DATA_DIR: path.join(dir, 'data'), PORT: '0', DATABASE_URL: '', REDIS_URL: '' }, process.execPath);
  try {
    const base = () => /listening on (http:\/\/[^\s]+)/.exec(p.output())?.[1] ?? null;
    const ready = await Promise.race([firstOk(() => (base() ? `${base()}/health/ready` : null), start), p.exited.then((code) => { throw new Error(`npm start exited (${code}): ${p.errors()}`); })]);
    const key = /"test_secret_key":\s*"([^"]+)"/.exec(p.output())?.[1];
    if (!key) throw new Error(`no demo key printed:\n${p.output()}`);
    const authed = await firstOk(() => `${base()}/v1/vehicles`, start, { authorization: `Bearer ${key}` });
    return { ready, authed };
  } finally {
    await p.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function baseline(): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'startup-bare-'));
  const start = performance.now();
  const p = run([path.join(here, 'startup-bare.ts')], { DATA_DIR: path.join(dir, 'data'), PORT: '0' });
  try {
    const port = () => /READY (\d+)/.exec(p.output())?.[1] ?? null;
    return await firstOk(() => (port() ? `http://127.0.0.1:${port()}/health/ready` : null), start);
  } finally {
    await p.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function phases(): Promise<Record<string, number>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'startup-phases-'));
  const p = run([path.join(here, 'startup-phases.ts')], { DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '', REDIS_URL: '' });
  try {
    const code = await p.exited;
    const m = /PHASES (\{.*\})/.exec(p.output());
    if (code !== 0 || !m) throw new Error(`startup-phases failed (${code}): ${p.errors()}`);
    return JSON.parse(m[1]) as Record<string, number>;
  } finally {
    await p.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const watchdog = setTimeout(() => {
    console.error('bench: exceeded its budget; stopping');
    for (const c of children) c.kill('SIGKILL');
    process.exit(2);
  }, (RUNS * 3 * 150 + 60) * 1000);
  watchdog.unref();
  const p: { ready: number; authed: number }[] = [];
  const b: number[] = [];
  const ph: Record<string, number>[] = [];
  console.log(`bench: start-up on a fresh DATA_DIR (embedded PGlite), ${RUNS} run(s) each`);
  for (let i = 0; i < RUNS; i++) {
    const order = i % 2 === 0 ? ['baseline', 'project', 'phases'] : ['project', 'baseline', 'phases'];
    for (const what of order) {
      if (what === 'project') {
        const r = await project();
        p.push(r);
        console.log(`  run ${i + 1} project : first 200 of /health/ready ${r.ready.toFixed(0)} ms, authenticated GET /v1/vehicles ${r.authed.toFixed(0)} ms`);
      } else if (what === 'baseline') {
        const r = await baseline();
        b.push(r);
        console.log(`  run ${i + 1} baseline: first answer ${r.toFixed(0)} ms`);
      } else {
        const r = await phases();
        ph.push(r);
        console.log(`  run ${i + 1} phases  : ${Object.entries(r).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ')}`);
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
  const pr = median(p.map((r) => r.ready));
  const pa = median(p.map((r) => r.authed));
  const br = median(b);
  const keys = Object.keys(ph[0] ?? {});
  console.log('');
  console.log(`project : ${pr.toFixed(0)} ms to /health/ready (median of ${RUNS}; max ${Math.max(...p.map((r) => r.ready)).toFixed(0)} ms), ${pa.toFixed(0)} ms to an authenticated GET`);
  console.log(`baseline: ${br.toFixed(0)} ms (median of ${RUNS})`);
  console.log(`phases (median): ${keys.map((k) => `${k} ${median(ph.map((r) => r[k])).toFixed(0)} ms`).join(', ')}`);
  reportResult({
    target: 'start-up on a fresh DATA_DIR to the first answer',
    project: `${pr.toFixed(0)} ms (authenticated GET ${pa.toFixed(0)} ms)`,
    baseline: `${br.toFixed(0)} ms`,
    ratio: `${(pr / br).toFixed(2)}x`,
    goal: `<= ${GOAL_MS} ms`,
    meets: Math.max(...p.map((r) => r.authed)) <= GOAL_MS,
  });
  clearTimeout(watchdog);
}

runBench(main);
