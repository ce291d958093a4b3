// Subscribers bench: 1,000 graphql-ws subscribers on ONE server process, events caused over
// REST, and the time from each REST call to the event's arrival at every subscriber.
//
// project : bench/serve-app.ts (buildApp on PostgreSQL, no Redis: the in-process pubsub),
//           1,000 `events` subscriptions of one business (its test secret key), each its own
//           connection; an event is POST /v1/bookings (booking.created), relayed by the event
//           relay upon the commit's NOTIFY.
// baseline: bench/subscribers-bare.ts, a bare node:http + `ws` server on the same database:
//           POST /events inserts a booking-shaped event and NOTIFYs in one transaction; its
//           LISTEN connection claims the event (UPDATE ... RETURNING) and sends the JSON,
//           serialized once, to every socket as a graphql-ws `next` frame.
//
// The subscribers are the stock `graphql-ws` client over `ws`, split over CLIENT_PROCS child
// processes (bench/subscribers-clients.ts). Latency of an (event, subscriber) pair: arrival
// at the subscriber minus the event's commit, as seen by this process's own LISTEN on the
// channel the server NOTIFYs at commit (rental_outbox; bench_event for the baseline; one
// request is in flight at a time, so the first NOTIFY after the request is its commit). Also
// shown: from the REST response (the relay may deliver before the response is back, such
// pairs count 0) and from the request being sent. Times are CLOCK_MONOTONIC, shared by all
// processes of the machine.
// RSS: VmRSS of the server process with all subscribers connected, after the events.
// Both servers run as `npm start` runs the service: with the environment assignments and node
// flags of package.json's "start" script (read from there, the one place they are set; e.g.
// MALLOC_ARENA_MAX, see src/main.ts), so the ratio compares code, not runtime settings.
//
// On these shared 2-core machines the subscribers' processes compete with the server for
// the CPU; read the ratio beside the absolute figures, and repeat (BENCH_ROUNDS).
//
// Env: BENCH_SUBSCRIBERS (1000), BENCH_EVENTS (20), BENCH_EVENT_GAP_MS (250), BENCH_ROUNDS (1),
//      BENCH_CLIENT_PROCS (2), BENCH_CPU_PROF (a directory: the server runs with --cpu-prof),
//      TEST_POSTGRES_URL (server to create the throwaway database on).
import { fork, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { OUTBOX_CHANNEL } from '../src/domain/events/event.service.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { createTestPostgresDatabase } from '../test/support/postgres.ts';
import { envInt } from './bench-env.ts';
import { reportResult } from './result.ts';
import { bundled, killChildren, runBench, startChildServer, startScriptRuntime } from './harness.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const SUBSCRIBERS = envInt('BENCH_SUBSCRIBERS', 1000);
const EVENTS = envInt('BENCH_EVENTS', 20);
const GAP_MS = envInt('BENCH_EVENT_GAP_MS', 250);
const ROUNDS = envInt('BENCH_ROUNDS', 1);
const CLIENT_PROCS = envInt('BENCH_CLIENT_PROCS', 2);
const CPU_PROF = process.env.BENCH_CPU_PROF || '';
const P95_GOAL_MS = 100;
const RSS_GOAL_MB = 250;

type Target = 'project' | 'baseline';
const SCRIPTS: Record<Target, string> = { project: path.join(here, 'serve-app.ts'), baseline: path.join(here, 'subscribers-bare.ts') };

const EVENTS_QUERY = /* GraphQL */ `
  subscription Events {
    events { id type apiVersion createdAt livemode data request }
  }`;

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const children = new Set<ChildProcess>();

interface Server { port: number; pid: number; stop(): Promise<void> }

function track(child: ChildProcess) {
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { children.delete(child); resolve(); }));
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
    await exited;
    clearTimeout(timer);
  };
}

async function startServer(target: Target, databaseUrl: string): Promise<Server> {
  const runtime = await startScriptRuntime();
  return startChildServer(
    await bundled(SCRIPTS[target]),
    { ...process.env, ...runtime.env, DATABASE_URL: databaseUrl, PORT: '0', NODE_ENV: 'production', WEBHOOK_WORKER: 'off', REDIS_URL: '', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    [...runtime.nodeArgs, ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF, target)}`] : [])],
  );
}

/** The subscribers' processes, and the events every one of their subscribers has received. */
class Subscribers {
  private procs: { child: ChildProcess; stop: () => Promise<void> }[] = [];
  private complete = new Map<string, number>(); // object id -> processes done
  private waiters = new Set<() => void>();
  errors: string[] = [];

  async start(url: string, authorization: string, total: number) {
    let connected = 0;
    const allConnected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`subscribers not connected within 120 s (${this.errors.slice(0, 3).join('; ')})`)), 120_000);
      for (let i = 0; i < CLIENT_PROCS; i++) {
        const count = Math.floor(total / CLIENT_PROCS) + (i < total % CLIENT_PROCS ? 1 : 0);
        const child = fork(path.join(here, 'subscribers-clients.ts'), [], { cwd: root, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        this.procs.push({ child, stop: track(child) });
        child.on('message', (msg: { type: string; eventId?: string; message?: string }) => {
          if (msg.type === 'connected' && ++connected === CLIENT_PROCS) {
            clearTimeout(timer);
            resolve();
          } else if (msg.type === 'complete') {
            this.complete.set(msg.eventId!, (this.complete.get(msg.eventId!) ?? 0) + 1);
            for (const w of this.waiters) w();
          } else if (msg.type === 'error') {
            if (this.errors.length < 20) this.errors.push(msg.message!);
          }
        });
        child.send({ type: 'start', url, authorization, count, query: EVENTS_QUERY });
      }
    });
    await allConnected;
  }

  /** Resolves true once every subscriber has received the event of `objectId`, false after `timeoutMs`. */
  reached(objectId: string, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        if ((this.complete.get(objectId) ?? 0) === CLIENT_PROCS) done(true);
      };
      const done = (ok: boolean) => {
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(ok);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  async arrivals(): Promise<{ arrivals: Map<string, number[]>; size: number }> {
    const all = new Map<string, number[]>();
    let size = 0;
    await Promise.all(this.procs.map(({ child }) => new Promise<void>((resolve) => {
      const on = (msg: { type: string; arrivals?: Record<string, number[]>; size?: number }) => {
        if (msg.type !== 'arrivals') return;
        child.off('message', on);
        for (const [id, times] of Object.entries(msg.arrivals!)) all.set(id, [...(all.get(id) ?? []), ...times]);
        size = Math.max(size, msg.size ?? 0);
        resolve();
      };
      child.on('message', on);
      child.send({ type: 'report' });
    })));
    return { arrivals: all, size };
  }

  async stop() {
    await Promise.all(this.procs.map((p) => p.stop()));
  }
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

let dayOffset = 10;
function nextPeriod() {
  dayOffset += 3;
  const start = new Date(Date.now() + dayOffset * 86_400_000);
  start.setUTCMinutes(0, 0, 0);
  return { start_at: start.toISOString(), end_at: new Date(start.getTime() + 2 * 86_400_000).toISOString() };
}

interface Setup { databaseUrl: string; key: string; businessId: string; vehicleId: string }

/** Causes one event; returns the id of the object it is about (what the subscribers key on). */
async function cause(target: Target, port: number, setup: Setup): Promise<string> {
  const body = { vehicle_id: setup.vehicleId, ...nextPeriod(), customer: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+1 512 555 0100' } };
  if (target === 'project') {
    const res = await fetch(`http://127.0.0.1:${port}/v1/bookings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { id: string };
    if (res.status !== 201) throw new Error(`booking not created: ${res.status} ${JSON.stringify(json)}`);
    return json.id;
  }
  const res = await fetch(`http://127.0.0.1:${port}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { object: string };
  if (res.status !== 201) throw new Error(`bare event not created: ${res.status}`);
  return json.object;
}

interface Figures {
  p50: number; p95: number; max: number; fromResponseP95: number; fromSendP95: number;
  pairs: number; missing: number;
  rssIdle: number; rssConnected: number; rssAfter: number;
  cpuMsPerEvent: number; payloadChars: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function measure(target: Target, setup: Setup): Promise<Figures> {
  const server = await startServer(target, setup.databaseUrl);
  const subs = new Subscribers();
  // Commit times: this process's own LISTEN on the channel the server NOTIFYs at commit.
  const listener = new pg.Client({ connectionString: setup.databaseUrl });
  const notified: number[] = [];
  listener.on('notification', () => notified.push(now()));
  await listener.connect();
  await listener.query(`LISTEN ${target === 'project' ? OUTBOX_CHANNEL : 'bench_event'}`);
  try {
    await sleep(500);
    const rssIdle = await rssMb(server.pid);
    const t0 = now();
    await subs.start(`ws://127.0.0.1:${server.port}/graphql`, `Bearer ${setup.key}`, SUBSCRIBERS);
    const connectMs = now() - t0;
    // graphql-ws acknowledges connections, not subscriptions: warm-up events until one reaches all.
    let warmups = 0;
    for (;;) {
      const id = await cause(target, server.port, setup);
      warmups++;
      if (await subs.reached(id, 5_000)) break;
      if (warmups >= 12) throw new Error(`${target}: no warm-up event reached all ${SUBSCRIBERS} subscribers (${subs.errors.slice(0, 3).join('; ')})`);
    }
    await sleep(GAP_MS);
    const rssConnected = await rssMb(server.pid);

    const sent: { id: string; sentAt: number; answeredAt: number }[] = [];
    const cpuBefore = await cpuSeconds(server.pid);
    for (let i = 0; i < EVENTS; i++) {
      const sentAt = now();
      const id = await cause(target, server.port, setup);
      const answeredAt = now();
      sent.push({ id, sentAt, answeredAt });
      await subs.reached(id, 15_000);
      await sleep(GAP_MS);
    }
    const cpuMsPerEvent = ((await cpuSeconds(server.pid)) - cpuBefore) * 1000 / EVENTS;
    const rssAfter = await rssMb(server.pid);

    const { arrivals, size } = await subs.arrivals();
    const fromCommit: number[] = [];
    const fromResponse: number[] = [];
    const fromSend: number[] = [];
    let missing = 0;
    for (const e of sent) {
      const times = arrivals.get(e.id) ?? [];
      missing += SUBSCRIBERS - times.length;
      const committedAt = notified.find((t) => t >= e.sentAt);
      if (committedAt === undefined || committedAt > e.answeredAt + 1_000) throw new Error(`${target}: no NOTIFY seen for event ${e.id}`);
      for (const t of times) {
        fromCommit.push(t - committedAt);
        fromResponse.push(Math.max(0, t - e.answeredAt));
        fromSend.push(t - e.sentAt);
      }
    }
    for (const xs of [fromCommit, fromResponse, fromSend]) xs.sort((a, b) => a - b);
    console.log(`    ${target}: ${SUBSCRIBERS} subscribers connected in ${connectMs.toFixed(0)} ms, ${warmups} warm-up event(s)${subs.errors.length ? `; errors: ${subs.errors.slice(0, 3).join('; ')}` : ''}`);
    return {
      p50: percentile(fromCommit, 50), p95: percentile(fromCommit, 95), max: fromCommit[fromCommit.length - 1] ?? NaN,
      fromResponseP95: percentile(fromResponse, 95), fromSendP95: percentile(fromSend, 95),
      pairs: fromCommit.length, missing,
      rssIdle, rssConnected, rssAfter, cpuMsPerEvent, payloadChars: size,
    };
  } finally {
    await listener.end().catch(() => {});
    await subs.stop();
    await server.stop();
  }
}

async function main() {
  const database = await createTestPostgresDatabase();
  const budgetMs = (ROUNDS * 2 * (EVENTS * (GAP_MS + 2_000) + 200_000) + 120_000);
  const watchdog = setTimeout(() => {
    console.error(`bench: exceeded its ${budgetMs / 1000} s budget; stopping`);
    for (const c of children) c.kill('SIGKILL');
    killChildren();
    void database.drop().finally(() => process.exit(2));
  }, budgetMs);
  watchdog.unref();
  try {
    const db = await openDatabase({ databaseUrl: database.url });
    let setup: Setup;
    try {
      const business = await createBusiness(db.prisma, { name: 'Bench Rentals' });
      const vehicle = await db.prisma.vehicle.create({
        data: {
          id: newId('vehicle'), businessId: business.business_id, livemode: false, name: 'Bench Sedan', make: 'Toyota', model: 'Camry', year: 2022,
          currency: 'usd', dailyRateCents: 8900, depositCents: 25000, includedMiles: 200, extraMileFeeCents: 35, unlimitedMilesDailyCents: 2500,
          location: { city: 'Austin', region: 'TX', country: 'US' }, features: ['bluetooth'], metadata: { fleet: 'bench' },
        },
      });
      setup = { databaseUrl: database.url, key: business.test_secret_key, businessId: business.business_id, vehicleId: vehicle.id };
    } finally {
      await db.close();
    }

    console.log(`bench: ${SUBSCRIBERS} graphql-ws subscribers (${CLIENT_PROCS} client processes) on one server process, PostgreSQL, no Redis (in-process pubsub); ${EVENTS} events ${GAP_MS} ms apart after the previous reached everyone; ${ROUNDS} round(s)`);
    const results: Record<Target, Figures[]> = { project: [], baseline: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: Target[] = round % 2 === 0 ? ['baseline', 'project'] : ['project', 'baseline'];
      for (const target of order) {
        const f = await measure(target, setup);
        results[target].push(f);
        console.log(
          `  round ${round + 1} ${target.padEnd(8)} from commit: p50 ${f.p50.toFixed(1)} ms  p95 ${f.p95.toFixed(1)} ms  max ${f.max.toFixed(1)} ms  (p95 from response ${f.fromResponseP95.toFixed(1)} ms, from request sent ${f.fromSendP95.toFixed(1)} ms; ${f.pairs} pairs, ${f.missing} missing)  RSS idle ${f.rssIdle.toFixed(0)} MB, connected ${f.rssConnected.toFixed(0)} MB, after events ${f.rssAfter.toFixed(0)} MB  server CPU ${f.cpuMsPerEvent.toFixed(1)} ms/event  (event ${f.payloadChars} chars)`,
        );
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
    const sum = (t: Target) => ({
      p50: median(results[t].map((f) => f.p50)),
      p95: median(results[t].map((f) => f.p95)),
      max: Math.max(...results[t].map((f) => f.max)),
      rss: Math.max(...results[t].map((f) => f.rssAfter)),
      cpu: median(results[t].map((f) => f.cpuMsPerEvent)),
      missing: results[t].reduce((a, f) => a + f.missing, 0),
    });
    const p = sum('project');
    const b = sum('baseline');
    console.log('');
    console.log(`project : p50 ${p.p50.toFixed(1)} ms, p95 ${p.p95.toFixed(1)} ms, max ${p.max.toFixed(1)} ms, RSS ${p.rss.toFixed(0)} MB, ${p.cpu.toFixed(1)} ms CPU/event`);
    console.log(`baseline: p50 ${b.p50.toFixed(1)} ms, p95 ${b.p95.toFixed(1)} ms, max ${b.max.toFixed(1)} ms, RSS ${b.rss.toFixed(0)} MB, ${b.cpu.toFixed(1)} ms CPU/event`);
    const ratio = (x: number, y: number) => (y > 0 ? `${(x / y).toFixed(2)}x` : '-');
    console.log(`ratio project/baseline: p95 ${ratio(p.p95, b.p95)}, RSS ${ratio(p.rss, b.rss)}, CPU per event ${ratio(p.cpu, b.cpu)}`);
    reportResult({
      target: `${SUBSCRIBERS} graphql-ws subscribers: event delivery p95`,
      project: `${p.p95.toFixed(1)} ms (p50 ${p.p50.toFixed(1)}, max ${p.max.toFixed(1)})`,
      baseline: `${b.p95.toFixed(1)} ms (p50 ${b.p50.toFixed(1)}, max ${b.max.toFixed(1)})`,
      ratio: ratio(p.p95, b.p95),
      goal: `<= ${P95_GOAL_MS} ms`,
      meets: p.p95 <= P95_GOAL_MS && p.missing === 0,
    });
    reportResult({
      target: `${SUBSCRIBERS} graphql-ws subscribers: server RSS`,
      project: `${p.rss.toFixed(0)} MB`,
      baseline: `${b.rss.toFixed(0)} MB`,
      ratio: ratio(p.rss, b.rss),
      goal: `<= ${RSS_GOAL_MB} MB`,
      meets: p.rss <= RSS_GOAL_MB,
    });
    if (p.missing || b.missing) {
      console.error(`bench: events missing at subscribers (project ${p.missing}, baseline ${b.missing})`);
      process.exitCode = 1;
    }
  } finally {
    for (const c of children) c.kill('SIGKILL');
    killChildren();
    await database.drop();
    clearTimeout(watchdog);
  }
}

runBench(main);
