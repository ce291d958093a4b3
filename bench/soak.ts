// Soak: a mixed workload at a steady rate for ten minutes against one API process on
// PostgreSQL (webhook worker and maintenance on), sampling the process every 10 s:
// resident memory, V8 heap, event-loop delay, open handles (prom-client's defaults on
// /metrics) and the database connections the process holds (pg_stat_activity). A leak shows
// as a slope: RSS and heap over the last five minutes must be flat, and after the load the
// idle process must hold no more handles or connections than it did idle after warm-up.
//
// The workload, per second: vehicle reads, the availability search, the bookings list over
// REST, a page of bookings over GraphQL, event lists, booking creates with Idempotency-Keys
// on a small fleet (some collide: 409), sandbox payments, cancellations with refunds, and
// live subscriptions over SSE opened and dropped. A local receiver takes the webhooks.
//
// Env: SOAK_SECONDS (600), SOAK_RATE (40 requests/s), SOAK_VEHICLES (50),
//      TEST_POSTGRES_URL (server to create the throwaway database on).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { createTestPostgresDatabase } from '../test/support/postgres.ts';
import { envInt } from './bench-env.ts';
import { migrateAndCreateBusiness } from './bench-data.ts';
import { killChildren, runBench, startServer, watchdog } from './harness.ts';
import { reportResult } from './result.ts';

const SECONDS = envInt('SOAK_SECONDS', 600);
const RATE = envInt('SOAK_RATE', 40);
const VEHICLES = envInt('SOAK_VEHICLES', 50);
const SAMPLE_MS = 10_000;
const WARMUP_MS = 30_000;
const IDLE_MS = 15_000;
/** A flat line: at most this many MB a minute over the second half of the run. */
const GOAL_RSS_SLOPE = 1;
const GOAL_HEAP_SLOPE = 0.5;

interface Sample {
  at: number;
  rssMb: number;
  heapMb: number;
  loopP99Ms: number;
  handles: number;
  /** Open handles by kind (Socket, Timeout, ...): what grew, when something did. */
  handleKinds: Record<string, number>;
  connections: number;
}

const DAY = 86_400_000;

async function main() {
  const database = await createTestPostgresDatabase();
  const disarm = watchdog('soak', (SECONDS + 300) * 1000, () => database.drop());
  const tenant = await migrateAndCreateBusiness(database.url);
  const receiver = createServer((req, res) => req.resume().on('end', () => res.end('ok')));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const server = await startServer('project', 'serve-app.ts', database.url, { env: { HOLD_SWEEP_MS: '5000' } });
  const base = `http://127.0.0.1:${server.port}`;
  const headers = { authorization: `Bearer ${tenant.testSecretKey}`, 'content-type': 'application/json' };
  const statuses = new Map<string, number>();
  const count = (what: string) => statuses.set(what, (statuses.get(what) ?? 0) + 1);
  const call = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    try {
      const res = await fetch(base + path, { method, headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      count(`${method} ${path.replace(/\/(veh|bkg|bk)_[A-Za-z0-9]+/g, '/{id}').replace(/\?.*/, '')} ${res.status}`);
      return { status: res.status, body: text ? JSON.parse(text) : null };
    } catch (err) {
      count(`${method} network error (${(err as Error).message})`);
      return { status: 0, body: null };
    }
  };

  const endpoint = await call('POST', '/v1/developers/webhooks', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, enabled_events: ['*'] });
  if (endpoint.status !== 201) console.log(`soak: webhook endpoint not created (${endpoint.status} ${JSON.stringify(endpoint.body)}); going on without webhooks`);
  const vehicles: string[] = [];
  for (let i = 0; i < VEHICLES; i++) {
    const v = await call('POST', '/v1/vehicles', { name: `Soak ${i}`, daily_rate_cents: 4900, deposit_cents: 0, included_miles: 200, extra_mile_fee_cents: 35 });
    if (v.status !== 201) throw new Error(`vehicle not created: ${v.status} ${JSON.stringify(v.body)}`);
    vehicles.push(v.body.id);
  }
  const pending: string[] = [];
  const paid: string[] = [];
  let serial = 0;
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const take = <T>(xs: T[]) => xs.splice(Math.floor(Math.random() * xs.length), 1)[0];
  const period = () => {
    const start = new Date(Date.now() + (2 + Math.floor(Math.random() * 300)) * DAY);
    start.setUTCHours(10, 0, 0, 0);
    return { start_at: start.toISOString(), end_at: new Date(start.getTime() + (1 + Math.floor(Math.random() * 4)) * DAY).toISOString() };
  };
  const page = `query Page { bookings(first: 20) { edges { node { id state vehicle { id name } customer { id name } payment { id state } } } } }`;

  // One operation, weighted as a booking site and a dashboard use the API together.
  const operations: [number, () => Promise<unknown>][] = [
    [30, () => call('GET', `/v1/vehicles/${pick(vehicles)}`)],
    [8, () => call('GET', `/v1/availability?${new URLSearchParams(period())}`)],
    [8, () => call('GET', '/v1/bookings?limit=20')],
    [8, () => call('POST', '/graphql', { query: page })],
    [6, () => call('GET', '/v1/events?limit=20')],
    [16, async () => {
      const key = `soak-${process.pid}-${serial++}`;
      const created = await call('POST', '/v1/bookings', { vehicle_id: pick(vehicles), ...period(), customer: { name: 'Soak Customer', email: `soak${serial % 500}@example.com` } }, { 'idempotency-key': key });
      if (created.status === 201) pending.push(created.body.id);
    }],
    [12, async () => {
      const id = take(pending);
      if (id && (await call('POST', `/v1/test/bookings/${id}/payment/succeed`, {})).status === 200) paid.push(id);
    }],
    [6, async () => {
      const id = take(paid);
      if (id) await call('POST', `/v1/bookings/${id}/cancel`, { reason: 'soak' });
    }],
    [2, async () => {
      // A live subscriber that stays a second and leaves: its stream, timers and listeners must go with it.
      const abort = new AbortController();
      try {
        const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { ...headers, accept: 'text/event-stream' }, body: JSON.stringify({ query: 'subscription { events { id type } }' }), signal: abort.signal });
        count(`SSE subscribe ${res.status}`);
        setTimeout(() => abort.abort(), 1_000);
        await res.body?.pipeTo(new WritableStream()).catch(() => {});
      } catch {
        /* aborted */
      }
    }],
  ];
  const totalWeight = operations.reduce((s, [w]) => s + w, 0);
  const operation = () => {
    let r = Math.random() * totalWeight;
    for (const [w, op] of operations) if ((r -= w) < 0) return op();
    return operations[0][1]();
  };

  const samples: Sample[] = [];
  const sample = async (): Promise<Sample> => {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(metrics)?.[1] ?? NaN);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    // The API process's connections: every backend on the database but this one.
    const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    await client.end();
    const handleKinds = Object.fromEntries([...metrics.matchAll(/^nodejs_active_handles\{type="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
    return { at: Date.now(), handleKinds, rssMb: metric('process_resident_memory_bytes') / 2 ** 20, heapMb: metric('nodejs_heap_size_used_bytes') / 2 ** 20, loopP99Ms: metric('nodejs_eventloop_lag_p99_seconds') * 1000, handles: metric('nodejs_active_handles_total'), connections: rows[0].n };
  };

  // The load: RATE operations a second, each started on its tick whatever the others do.
  const clientDelay = monitorEventLoopDelay();
  clientDelay.enable();
  const inFlight = new Set<Promise<unknown>>();
  const load = (ms: number) =>
    new Promise<void>((resolve) => {
      const until = Date.now() + ms;
      const timer = setInterval(() => {
        if (Date.now() >= until) return void (clearInterval(timer), resolve());
        const p = operation().finally(() => inFlight.delete(p));
        inFlight.add(p);
      }, 1000 / RATE);
    });
  const settle = async () => {
    await Promise.allSettled([...inFlight]);
    await new Promise((r) => setTimeout(r, IDLE_MS));
  };

  console.log(`soak: ${SECONDS} s at ${RATE} requests/s, ${VEHICLES} vehicles, one API process on PostgreSQL; warm-up ${WARMUP_MS / 1000} s`);
  await load(WARMUP_MS);
  await settle();
  const idleBefore = await sample();
  const started = Date.now();
  const sampler = setInterval(() => void sample().then((s) => {
    samples.push(s);
    console.log(`  ${((s.at - started) / 1000).toFixed(0).padStart(4)} s  RSS ${s.rssMb.toFixed(1)} MB  heap ${s.heapMb.toFixed(1)} MB  loop p99 ${s.loopP99Ms.toFixed(1)} ms  handles ${s.handles}  db connections ${s.connections}`);
  }), SAMPLE_MS);
  await load(SECONDS * 1000);
  clearInterval(sampler);
  await settle();
  const idleAfter = await sample();
  clientDelay.disable();

  const secondHalf = samples.filter((s) => s.at - started >= (SECONDS * 1000) / 2);
  const rssSlope = slopePerMinute(secondHalf.map((s) => [s.at, s.rssMb]));
  // The heap rises and falls with every young collection; what a leak raises is its floor, the
  // lowest sample of each minute.
  const heapSlope = slopePerMinute(minuteFloors(secondHalf, started));
  const windows = samples.map((s) => s.loopP99Ms).sort((a, b) => a - b);
  const loopP99 = windows[windows.length - 1];
  const loopP99Median = windows[Math.floor(windows.length / 2)];
  const errors = [...statuses].filter(([k]) => / 5\d\d$|network error/.test(k));
  const requests = [...statuses.values()].reduce((a, b) => a + b, 0);
  console.log(`\nrequests: ${requests} (${(requests / (SECONDS + WARMUP_MS / 1000)).toFixed(1)}/s)`);
  for (const [k, n] of [...statuses].sort()) console.log(`  ${String(n).padStart(7)}  ${k}`);
  console.log(`idle after warm-up: handles ${idleBefore.handles} ${JSON.stringify(idleBefore.handleKinds)}, db connections ${idleBefore.connections}, RSS ${idleBefore.rssMb.toFixed(1)} MB, heap ${idleBefore.heapMb.toFixed(1)} MB`);
  console.log(`idle after the run: handles ${idleAfter.handles} ${JSON.stringify(idleAfter.handleKinds)}, db connections ${idleAfter.connections}, RSS ${idleAfter.rssMb.toFixed(1)} MB, heap ${idleAfter.heapMb.toFixed(1)} MB`);
  console.log(`slope over the last ${(SECONDS / 2 / 60).toFixed(1)} min: RSS ${rssSlope.toFixed(2)} MB/min, heap ${heapSlope.toFixed(2)} MB/min; event-loop delay p99 of each 10 s window: median ${loopP99Median.toFixed(1)} ms, worst ${loopP99.toFixed(1)} ms; this client's own loop p99 ${(clientDelay.percentile(99) / 1e6).toFixed(1)} ms`);

  reportResult({ target: 'soak: RSS slope, last half', project: `${rssSlope.toFixed(2)} MB/min`, baseline: '-', ratio: rssSlope.toFixed(2), goal: `< ${GOAL_RSS_SLOPE} MB/min`, meets: rssSlope < GOAL_RSS_SLOPE });
  reportResult({ target: 'soak: heap floor slope, last half', project: `${heapSlope.toFixed(2)} MB/min`, baseline: '-', ratio: heapSlope.toFixed(2), goal: `< ${GOAL_HEAP_SLOPE} MB/min`, meets: heapSlope < GOAL_HEAP_SLOPE });
  reportResult({ target: 'soak: event-loop delay p99, median 10 s window', project: `${loopP99Median.toFixed(1)} ms (worst ${loopP99.toFixed(1)} ms)`, baseline: '-', ratio: '-', goal: 'reported', meets: true });
  reportResult({ target: 'soak: open handles idle, after vs before', project: String(idleAfter.handles), baseline: String(idleBefore.handles), ratio: String(idleAfter.handles - idleBefore.handles), goal: 'no growth', meets: idleAfter.handles <= idleBefore.handles });
  reportResult({ target: 'soak: db connections idle, after vs before', project: String(idleAfter.connections), baseline: String(idleBefore.connections), ratio: String(idleAfter.connections - idleBefore.connections), goal: 'no growth', meets: idleAfter.connections <= idleBefore.connections });
  reportResult({ target: 'soak: 5xx and network errors', project: String(errors.reduce((s, [, n]) => s + n, 0)), baseline: '-', ratio: '-', goal: '0', meets: errors.length === 0 });

  await server.stop();
  receiver.close();
  disarm();
  await database.drop();
}

/** The lowest heap sample of each minute since `started`, as (time, MB) points. */
function minuteFloors(samples: Sample[], started: number): [number, number][] {
  const floors = new Map<number, Sample>();
  for (const s of samples) {
    const minute = Math.floor((s.at - started) / 60_000);
    const floor = floors.get(minute);
    if (!floor || s.heapMb < floor.heapMb) floors.set(minute, s);
  }
  return [...floors.values()].map((s) => [s.at, s.heapMb]);
}

/** Least-squares slope of (time ms, MB) points, in MB a minute. */
function slopePerMinute(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return (sxy / sxx) * 60_000;
}

process.on('SIGINT', () => {
  killChildren();
  process.exit(130);
});
runBench(main);
