// The chaos test's private infrastructure: a PostgreSQL cluster of its own (initdb and pg_ctl
// in a temporary directory, on a free port), a redis-server of its own, and the service's
// processes (the built API, `npm start`'s entry, and the separate worker, `npm run worker`'s),
// each of which the harness kills with SIGKILL and starts again. The machine's shared
// PostgreSQL (5432) and Redis (6379) are never touched.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startPrivatePostgres as startPrivateCluster, type PrivatePostgres } from '../support/private-postgres.ts';
import { freePort, startTestRedis, type TestRedis } from '../support/redis.ts';

export const root = path.resolve(import.meta.dirname, '../..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Cleanups that must run even when the harness is stopped abruptly (a test timeout, Ctrl-C). */
const exitCleanups = new Set<() => void>();
let exitHooked = false;
function onExit(cleanup: () => void): () => void {
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => exitCleanups.forEach((c) => c()));
  }
  exitCleanups.add(cleanup);
  return () => exitCleanups.delete(cleanup);
}

// ---------------------------------------------------------------------------- PostgreSQL

export type { PrivatePostgres };

/** The test's own cluster (test/support/private-postgres.ts), sized for every process's pool and the harness. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const cluster = await startPrivateCluster({ database: 'chaos', settings: '-c max_connections=200 -c shared_buffers=32MB' });
  return { ...cluster, stop: () => cluster.destroy() };
}

// ---------------------------------------------------------------------------- Redis

export type { TestRedis };
export async function startPrivateRedis(): Promise<TestRedis> {
  const redis = await startTestRedis();
  onExit(() => void redis.stop('SIGKILL'));
  return redis;
}

// ---------------------------------------------------------------------------- the service's processes

/**
 * The environment assignments and node flags of an npm script that runs a bundle of dist/
 * (`start`: dist/main.mjs, `worker`: dist/worker.mjs), so a process the harness starts runs as
 * `npm start` and `npm run worker` run it; the harness starts node itself, because SIGKILL to
 * npm would leave its node running.
 */
export async function npmScriptRuntime(script: 'start' | 'worker'): Promise<{ env: Record<string, string>; nodeArgs: string[]; entry: string }> {
  const line: string = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).scripts[script];
  const m = /^((?:[A-Za-z_]\w*=\S*\s+)*)node((?:\s+--\S+)*)\s+(dist\/\w+\.mjs)$/.exec(line.trim());
  if (!m) throw new Error(`chaos: cannot read the environment and node flags of the ${script} script: ${line}`);
  const env = Object.fromEntries(m[1].split(/\s+/).filter(Boolean).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
  return { env, nodeArgs: m[2].split(/\s+/).filter(Boolean), entry: m[3] };
}

/** `npm start`'s prestart: bundle the service into dist/. */
export async function buildService(): Promise<void> {
  const child = spawn(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`scripts/build.mjs failed (${code}):\n${output}`);
}

export interface Restart {
  process: string;
  /** What it was started again after: the harness's SIGKILL, or an exit of its own. */
  after: 'kill' | 'crash';
  /** From the spawn to the first 200 from /health/ready (the API) or the worker's start line. */
  readyMs: number;
}

/** Keeps the end of a process's output: enough to explain a failure, bounded for a long run. */
function tail(limit = 64 * 1024) {
  let text = '';
  return {
    push(chunk: string) {
      text += chunk;
      if (text.length > limit * 2) text = text.slice(-limit);
    },
    get: () => text.slice(-limit),
  };
}

const WORKER_READY = /webhook worker delivering from PostgreSQL/;

/** What the report counts in the processes' logs: the database errors behind 500s and exits. */
const LOG_PATTERNS: [string, RegExp][] = [
  ['deadlock (40P01)', /40P01|deadlock detected/],
  ['serialization failure (40001)', /40001|could not serialize access/],
  ['database starting or shutting down (57P03/57P01)', /57P03|57P01|the database system is (starting up|shutting down)|terminating connection due to administrator command/],
  ['connection lost', /Connection terminated unexpectedly|ECONNREFUSED|ECONNRESET/],
];

/**
 * One of the service's processes under the harness: started, killed with SIGKILL, started
 * again (an API process on the same port, as behind a load balancer). `generation` counts its
 * starts, so a request can tell whether its process died while it waited.
 */
export class ServiceProcess {
  child: ChildProcess | null = null;
  generation = 0;
  /** When the current process was killed, if it is down. */
  downSince: number | null = null;
  readonly output = tail();
  /** Lines of its output (across restarts) naming PostgreSQL errors the service should absorb, by kind. */
  readonly logCounts: Record<string, number> = {};
  /** The kind of database error its log names for a request (by Request-Id), when it names one. */
  readonly logCauses: Record<string, string> = {};
  readonly restarts: Restart[] = [];
  /** Exits the harness did not cause (a crash of the service itself). */
  readonly unexpectedExits: { at: number; code: number | null; signal: string | null; output: string }[] = [];
  private killing = false;
  private stopping = false;
  private starting = false;
  /** The restart after an exit the harness did not cause, while it runs. */
  supervising: Promise<void> | null = null;

  constructor(
    readonly name: string,
    readonly kind: 'api' | 'worker',
    readonly port: number,
    private readonly runtime: { env: Record<string, string>; nodeArgs: string[]; entry: string },
    private readonly env: Record<string, string>,
  ) {}

  get baseUrl() {
    return `http://127.0.0.1:${this.port}`;
  }
  private readLogLine(line: string) {
    for (const [kind, pattern] of LOG_PATTERNS) {
      if (!pattern.test(line)) continue;
      this.logCounts[kind] = (this.logCounts[kind] ?? 0) + 1;
      const request = /"request_id":"(req_\w+)"/.exec(line);
      if (request) this.logCauses[request[1]] ??= kind;
    }
  }

  /** Started and serving (not down, not still starting). */
  get alive() {
    return this.child !== null && this.downSince === null && !this.starting;
  }

  /** Start it and wait until it serves; returns how long that took. */
  async start(timeoutMs = 60_000): Promise<number> {
    const begun = Date.now();
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.runtime.env, ...this.env, PORT: String(this.port), LOG_LEVEL: this.kind === 'worker' ? 'info' : (this.env.LOG_LEVEL ?? 'warn') };
    const child = spawn(process.execPath, [...this.runtime.nodeArgs, this.runtime.entry], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.generation++;
    const removeCleanup = onExit(() => child.kill('SIGKILL'));
    let printed = '';
    let partial = '';
    const take = (d: Buffer) => {
      const s = d.toString();
      this.output.push(s);
      if (printed.length < 8192) printed += s;
      const lines = (partial + s).split('\n');
      partial = lines.pop()!;
      for (const line of lines) this.readLogLine(line);
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.once('exit', (code, signal) => {
      removeCleanup();
      if (this.child !== child) return;
      if (this.downSince === null) this.downSince = Date.now();
      if (this.killing || this.stopping || this.starting) return; // a start that fails says so itself
      // Not our doing: recorded (a violation), and started again as a supervisor would, so the run goes on.
      this.unexpectedExits.push({ at: Date.now(), code, signal, output: this.output.get().slice(-4000) });
      this.supervising = this.superviseRestart();
    });
    this.downSince = null;
    this.starting = true;
    try {
      const deadline = begun + timeoutMs;
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${this.name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${this.output.get().slice(-4000)}`);
        if (Date.now() > deadline) {
          this.child = null; // its exit is this start's failure, not a crash to supervise
          child.kill('SIGKILL');
          throw new Error(`${this.name} not ready in ${timeoutMs} ms:\n${this.output.get().slice(-4000)}`);
        }
        if (this.kind === 'worker' ? WORKER_READY.test(printed) : await this.ready()) break;
        await sleep(this.kind === 'worker' ? 20 : 50);
      }
    } finally {
      this.starting = false;
    }
    return Date.now() - begun;
  }

  /** Start it again after an exit of its own, as a supervisor would. */
  private async superviseRestart(): Promise<void> {
    const begun = Date.now();
    await sleep(500);
    if (this.stopping) return;
    try {
      await this.startServing(begun);
      this.restarts.push({ process: this.name, readyMs: Date.now() - begun, after: 'crash' });
    } catch (err) {
      this.unexpectedExits.push({ at: Date.now(), code: null, signal: null, output: (err as Error).message });
    }
  }

  /**
   * Start it, and start it again while it exits before serving (a start that meets the
   * database restarting exits 1, as documented), for a minute at most; returns the time from
   * `begun` until it served.
   */
  private async startServing(begun: number): Promise<number> {
    for (let tries = 1; ; tries++) {
      try {
        await this.start();
        return Date.now() - begun;
      } catch (err) {
        if (this.stopping || Date.now() - begun > 60_000) throw new Error(`${this.name} not serving after ${tries} starts: ${(err as Error).message}`);
        await sleep(500);
      }
    }
  }

  /** /health/ready answers 200. */
  async ready(): Promise<boolean> {
    try {
      const res = await fetch(`${this.baseUrl}/health/ready`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** SIGKILL: the process vanishes mid-whatever, as in a crash or an OOM kill. */
  async kill9(): Promise<void> {
    await this.supervising;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.killing = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.downSince = Date.now();
    child.kill('SIGKILL');
    await exited;
    this.killing = false;
  }

  /** Kill it, wait `downMs`, start it again; the restart's time to ready is recorded. */
  async crashAndRestart(downMs: number): Promise<Restart> {
    await this.kill9();
    await sleep(downMs);
    const readyMs = await this.startServing(Date.now());
    const restart: Restart = { process: this.name, readyMs, after: 'kill' };
    this.restarts.push(restart);
    return restart;
  }

  /** SIGTERM at the end of the run (SIGKILL if it lingers). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.supervising?.catch(() => {});
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.killing = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
    await exited;
    clearTimeout(timer);
  }
}

export { freePort };
