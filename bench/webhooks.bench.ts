// Webhooks bench (`npm run bench:webhooks`): the delivery worker (`src/worker.ts`, the code
// `npm run worker` runs) against a bare node + pg baseline doing the same work
// (bench/webhook-bare-worker.ts), one at a time, on a throwaway PostgreSQL database.
//
// Three processes besides PostgreSQL: this driver (inserts events, collects figures), the
// worker, and a loopback receiver answering 204 (bench/webhook-receiver.ts), each with its
// own event loop. BENCH_ENDPOINTS sandbox endpoints (one path each on the receiver) spread
// over BENCH_BUSINESSES businesses; events go to the endpoints in turn. Per worker:
//   (i)  throughput: BENCH_EVENTS events committed at once (one transaction, one NOTIFY)
//        with the worker idle and listening; deliveries per second from that commit to the
//        last arrival at the receiver (and to the last attempt recorded in the database).
//   (ii) latency: one event per transaction at BENCH_RATE/s for BENCH_LATENCY_SECONDS with
//        the worker running; per event, receiver arrival time - the time the driver saw its
//        commit acknowledged (commit-to-first-attempt; also - Event.createdAt); median, p95.
// Checked, failing the bench: every event arrives once, each attempt is recorded as a first
// 204, each endpoint receives its events in the order they were created, and sampled
// signatures verify at the receiver.
// Events are inserted with plain SQL writing the rows recordEvent writes (an Event, one
// WebhookMessage due at its createdAt, pg_notify at commit): through Prisma recordEvent
// costs ~20 ms per event on these machines, which would throttle the inserting side of (i)
// and put the producer's own transaction time into (ii).
// On these shared 2-core machines read the ratios, not the absolute figures.
//
// Ends with RESULT lines (bench/result.ts): deliveries per second per worker (goal >= 1,000/s)
// and commit-to-first-attempt p95 (goal <= 50 ms), the means over rounds.
// Env: BENCH_EVENTS (5000), BENCH_ENDPOINTS (50), BENCH_BUSINESSES (5), BENCH_RATE (50
//      events/s), BENCH_LATENCY_SECONDS (5), BENCH_ROUNDS (1; rounds alternate the order),
//      BENCH_TARGETS (project,baseline), TEST_POSTGRES_URL (server to create the throwaway
//      database on), DATABASE_POOL_SIZE.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { OUTBOX_CHANNEL } from '../src/domain/events/event.service.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { newEndpointSecret } from '../src/domain/webhooks/signing.ts';
import { createTestPostgresDatabase } from '../test/support/postgres.ts';
import { envInt } from './bench-env.ts';
import { reportResult } from './result.ts';
import { runBench } from './harness.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const EVENTS = envInt('BENCH_EVENTS', 5000);
const ENDPOINTS = envInt('BENCH_ENDPOINTS', 50);
const BUSINESSES = envInt('BENCH_BUSINESSES', 5);
const RATE = envInt('BENCH_RATE', 50);
const LATENCY_SECONDS = envInt('BENCH_LATENCY_SECONDS', 5);
const ROUNDS = envInt('BENCH_ROUNDS', 1);
type Target = 'project' | 'baseline';
const TARGETS = (process.env.BENCH_TARGETS || 'project,baseline').split(',').map((t) => t.trim()) as Target[];
for (const t of TARGETS) if (t !== 'project' && t !== 'baseline') throw new Error(`BENCH_TARGETS: unknown target '${t}'`);
const SCRIPTS: Record<Target, string> = { project: path.join(root, 'src/worker.ts'), baseline: path.join(here, 'webhook-bare-worker.ts') };

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ children

const children = new Set<ChildProcess>();

interface Started {
  child: ChildProcess;
  line: RegExpExecArray;
  stop(): Promise<void>;
}

/** A TypeScript script in a child node (tsx loader); resolves once its stdout matches `ready`. */
function startChild(script: string, env: NodeJS.ProcessEnv, ready: RegExp, ipc = false): Promise<Started> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', ...env };
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'inherit', ...(ipc ? ['ipc' as const] : [])] });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { children.delete(child); resolve(); }));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => { void stop(); reject(new Error(`${script} did not start within 60 s:\n${out}`)); }, 60_000);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.on('data', (c: string) => process.stdout.write(c));
        resolve({ child, line: m, stop });
      }
    });
    child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`${script} exited before ready (code ${code}, signal ${signal}):\n${out}`)); });
  });
}

/** Arrivals reported by the receiver child: first arrival per webhook-id (time, rank), and repeats. */
const arrivals = new Map<string, number>();
const arrivalRank = new Map<string, number>();
let duplicates = 0;
const badSignatures: string[] = [];
let arrivalWaiter: (() => void) | null = null;
function onHits(message: unknown) {
  const { hits, badSignatures: bad } = message as { hits: [string, number, number][]; badSignatures: string[] };
  for (const [id, at, rank] of hits) {
    if (arrivals.has(id)) duplicates++;
    else {
      arrivals.set(id, at);
      arrivalRank.set(id, rank);
    }
  }
  badSignatures.push(...bad);
  arrivalWaiter?.();
}

async function waitForArrivals(ids: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const missing = ids.filter((id) => !arrivals.has(id)).length;
    if (missing === 0) return;
    if (Date.now() > deadline) throw new Error(`${missing} of ${ids.length} events not received within ${timeoutMs} ms`);
    await new Promise<void>((resolve) => {
      arrivalWaiter = resolve;
      setTimeout(resolve, 200);
    });
    arrivalWaiter = null;
  }
}

// ------------------------------------------------------------------ events

interface Endpoint {
  businessId: string;
  endpointId: string;
}

/** Event n goes to endpoint n mod the number of endpoints (each endpoint then gets n in rising order). */
const endpointOf = (endpoints: Endpoint[], n: number) => endpoints[n % endpoints.length];
/** Per event id: its endpoint and its number (rising with the id: ids are monotonic). */
const sequence = new Map<string, { endpointId: string; n: number }>();

/** `n` events and their messages in one transaction, as n recordEvent calls would write them. */
async function insertBatch(client: pg.Client, endpoints: Endpoint[], first: number, n: number): Promise<{ ids: string[]; committedAt: number }> {
  const ids = Array.from({ length: n }, () => newId('event'));
  const messageIds = Array.from({ length: n }, () => newId('webhookMessage'));
  const targets = Array.from({ length: n }, (_, i) => endpointOf(endpoints, first + i));
  ids.forEach((id, i) => sequence.set(id, { endpointId: targets[i].endpointId, n: first + i }));
  const data = Array.from({ length: n }, (_, i) => JSON.stringify({ object: { object: 'test', n: first + i } }));
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO "Event" (id, "businessId", livemode, type, data) SELECT id, b, false, 'booking.created', d::jsonb FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, b, d)`,
    [ids, targets.map((t) => t.businessId), data],
  );
  await client.query(
    `INSERT INTO "WebhookMessage" (id, "businessId", livemode, "endpointId", "eventId", "eventType", "nextAttemptAt", "updatedAt")
     SELECT t.mid, e."businessId", e.livemode, t.wid, e.id, e.type, e."createdAt", now() FROM unnest($1::text[], $2::text[], $3::text[]) AS t(mid, eid, wid) JOIN "Event" e ON e.id = t.eid`,
    [messageIds, ids, targets.map((t) => t.endpointId)],
  );
  await client.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
  await client.query('COMMIT');
  return { ids, committedAt: now() };
}

/** One event in its own transaction (a single statement); its createdAt and commit time. */
async function insertOne(client: pg.Client, endpoints: Endpoint[], n: number): Promise<{ id: string; createdAt: number; committedAt: number }> {
  const id = newId('event');
  const scope = endpointOf(endpoints, n);
  sequence.set(id, { endpointId: scope.endpointId, n });
  const { rows } = await client.query<{ ms: string }>(
    `WITH e AS (
       INSERT INTO "Event" (id, "businessId", livemode, type, data) VALUES ($1, $2, false, 'booking.created', $3::jsonb) RETURNING *
     ), m AS (
       INSERT INTO "WebhookMessage" (id, "businessId", livemode, "endpointId", "eventId", "eventType", "nextAttemptAt", "updatedAt")
       SELECT $4, e."businessId", e.livemode, $5, e.id, e.type, e."createdAt", now() FROM e
     )
     SELECT (extract(epoch FROM e."createdAt") * 1000)::text AS ms, pg_notify($6, '') FROM e`,
    [id, scope.businessId, JSON.stringify({ object: { object: 'test', n } }), newId('webhookMessage'), scope.endpointId, OUTBOX_CHANNEL],
  );
  return { id, createdAt: Number(rows[0].ms), committedAt: now() };
}

/** Wait until every message of `eventIds` is delivered (its attempt recorded); returns when. */
async function waitForRecorded(client: pg.Client, eventIds: string[], timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "WebhookMessage" WHERE "eventId" = ANY($1) AND state = 'delivered'`, [eventIds]);
    if (Number(rows[0].n) === eventIds.length) return now();
    if (Date.now() > deadline) throw new Error(`${eventIds.length - Number(rows[0].n)} of ${eventIds.length} messages not delivered within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/**
 * Each endpoint received its events in the order they were created (by the receiver's rank
 * of their first arrival); throws naming the first few that came out of order.
 */
function checkOrder(target: Target, ids: string[]): void {
  const byEndpoint = new Map<string, { n: number; rank: number; id: string }[]>();
  for (const id of ids) {
    const s = sequence.get(id)!;
    const list = byEndpoint.get(s.endpointId) ?? [];
    list.push({ n: s.n, rank: arrivalRank.get(id)!, id });
    byEndpoint.set(s.endpointId, list);
  }
  const broken: string[] = [];
  for (const [endpointId, list] of byEndpoint) {
    list.sort((a, b) => a.rank - b.rank);
    for (let i = 1; i < list.length; i++) {
      if (list[i].n < list[i - 1].n) broken.push(`${endpointId}: event #${list[i].n} (${list[i].id}) arrived after #${list[i - 1].n}`);
    }
  }
  if (broken.length > 0) throw new Error(`${target}: per-endpoint order broken ${broken.length} time(s): ${broken.slice(0, 5).join('; ')}`);
}

// ------------------------------------------------------------------ figures

/** CPU time (user + system, ms) a process has used so far (Linux /proc; NaN elsewhere). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return Number.NaN;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

interface Figures {
  perSecond: number;
  recordedPerSecond: number;
  /** CPU time (user + system) of the worker process per delivery in (i), from /proc; NaN where absent. */
  workerCpuMs: number;
  median: number;
  p95: number;
  max: number;
  commitMedian: number;
  commitP95: number;
  sent: number;
  attemptsRecorded: number;
}

async function measure(target: Target, databaseUrl: string, endpoints: Endpoint[], client: pg.Client, seq: { n: number }): Promise<Figures> {
  const duplicatesBefore = duplicates;
  const badBefore = badSignatures.length;
  const worker = await startChild(SCRIPTS[target], { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }, /webhook worker( \d+| delivering)/);
  try {
    await sleep(500); // let it settle (its start-up claim found nothing due)

    // (i) throughput
    const cpuBefore = await cpuMs(worker.child.pid!);
    const batch = await insertBatch(client, endpoints, seq.n, EVENTS);
    seq.n += EVENTS;
    await waitForArrivals(batch.ids, Math.max(60_000, EVENTS * 30));
    const last = Math.max(...batch.ids.map((id) => arrivals.get(id)!));
    const recorded = await waitForRecorded(client, batch.ids, 60_000);
    const workerCpuMs = ((await cpuMs(worker.child.pid!)) - cpuBefore) / EVENTS;
    const perSecond = EVENTS / ((last - batch.committedAt) / 1000);
    const recordedPerSecond = EVENTS / ((recorded - batch.committedAt) / 1000);

    // (ii) commit-to-first-attempt latency at a modest rate
    const count = RATE * LATENCY_SECONDS;
    const sent: { id: string; createdAt: number; committedAt: number }[] = [];
    const start = now();
    for (let k = 0; k < count; k++) {
      const wait = start + (k * 1000) / RATE - now();
      if (wait > 0) await sleep(wait);
      sent.push(await insertOne(client, endpoints, seq.n++));
    }
    const ids = sent.map((s) => s.id);
    await waitForArrivals(ids, 30_000);
    await waitForRecorded(client, ids, 30_000);
    const latencies = sent.map((s) => arrivals.get(s.id)! - s.createdAt).sort((a, b) => a - b);
    const sinceCommit = sent.map((s) => arrivals.get(s.id)! - s.committedAt).sort((a, b) => a - b);

    const all = [...batch.ids, ...ids];
    const { rows } = await client.query<{ n: string; bad: string }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE attempt <> 1 OR "responseStatus" <> 204) AS bad FROM "WebhookDelivery" WHERE "eventId" = ANY($1)`,
      [all],
    );
    if (duplicates !== duplicatesBefore || Number(rows[0].bad) !== 0 || Number(rows[0].n) !== all.length) {
      throw new Error(`${target}: ${duplicates - duplicatesBefore} duplicate arrivals, ${rows[0].n} attempts recorded for ${all.length} events (${rows[0].bad} not a first 204)`);
    }
    checkOrder(target, all);
    await sleep(20); // the receiver reports in batches every 5 ms
    if (badSignatures.length !== badBefore) throw new Error(`${target}: ${badSignatures.length - badBefore} sampled signature(s) did not verify, e.g. ${badSignatures[badBefore]}`);
    return {
      perSecond,
      recordedPerSecond,
      workerCpuMs,
      median: quantile(latencies, 0.5),
      p95: quantile(latencies, 0.95),
      max: latencies[latencies.length - 1],
      commitMedian: quantile(sinceCommit, 0.5),
      commitP95: quantile(sinceCommit, 0.95),
      sent: count,
      attemptsRecorded: Number(rows[0].n),
    };
  } finally {
    await worker.stop();
  }
}

// ------------------------------------------------------------------ main

async function main() {
  const database = await createTestPostgresDatabase();
  const perTargetSeconds = EVENTS / 100 + LATENCY_SECONDS + 90;
  const budgetMs = (ROUNDS * TARGETS.length * perTargetSeconds + 120) * 1000;
  const watchdog = setTimeout(() => {
    console.error(`bench: exceeded its ${Math.round(budgetMs / 1000)} s budget; stopping`);
    for (const c of children) c.kill('SIGKILL');
    void database.drop().finally(() => process.exit(2));
  }, budgetMs);
  watchdog.unref();
  const client = new pg.Client({ connectionString: database.url });
  let receiver: Started | undefined;
  try {
    // Migrations (openDatabase applies them), the businesses, their sandbox endpoints (one
    // path each on the receiver, whose secrets it is given to check signatures).
    const db = await openDatabase({ databaseUrl: database.url });
    const endpoints: Endpoint[] = [];
    try {
      const businesses = [];
      for (let b = 0; b < BUSINESSES; b++) businesses.push(await createBusiness(db.prisma, { name: `Bench Rentals ${b + 1}` }));
      receiver = await startChild(path.join(here, 'webhook-receiver.ts'), { PORT: '0' }, /READY (\d+)/, true);
      receiver.child.on('message', onHits);
      const secrets: Record<string, string> = {};
      for (let k = 0; k < ENDPOINTS; k++) {
        const business = businesses[k % BUSINESSES];
        const secret = newEndpointSecret();
        const endpoint = await db.prisma.webhookEndpoint.create({
          data: {
            id: newId('webhookEndpoint'),
            businessId: business.business_id,
            livemode: false,
            url: `http://127.0.0.1:${receiver.line[1]}/hooks/${k}`,
            enabledEvents: ['*'],
            secret,
          },
        });
        secrets[`/hooks/${k}`] = secret;
        endpoints.push({ businessId: business.business_id, endpointId: endpoint.id });
      }
      receiver.child.send({ secrets });
    } finally {
      await db.close();
    }
    await client.connect();

    console.log(
      `bench: webhooks to ${ENDPOINTS} endpoints of ${BUSINESSES} businesses, (i) ${EVENTS} events committed at once, (ii) ${RATE} events/s for ${LATENCY_SECONDS} s one per transaction; ${ROUNDS} round(s); worker pool ${process.env.DATABASE_POOL_SIZE ?? 20}`,
    );
    const results: Partial<Record<Target, Figures[]>> = {};
    const seq = { n: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse();
      for (const target of order) {
        const f = await measure(target, database.url, endpoints, client, seq);
        (results[target] ??= []).push(f);
        console.log(
          `  round ${round + 1} ${target.padEnd(8)} (i) ${f.perSecond.toFixed(0).padStart(5)} deliveries/s (${f.recordedPerSecond.toFixed(0)}/s to the last attempt recorded; worker CPU ${f.workerCpuMs.toFixed(3)} ms per delivery)` +
            `  (ii) createdAt->arrival median ${f.median.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, max ${f.max.toFixed(1)} ms` +
            ` (commit acknowledged->arrival median ${f.commitMedian.toFixed(1)} ms, p95 ${f.commitP95.toFixed(1)} ms; ${f.sent} events)`,
        );
      }
    }

    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const summary = (t: Target) => {
      const fs = results[t]!;
      return {
        rate: mean(fs.map((f) => f.perSecond)),
        cpu: mean(fs.map((f) => f.workerCpuMs)),
        commitMedian: mean(fs.map((f) => f.commitMedian)),
        commitP95: mean(fs.map((f) => f.commitP95)),
        createdP95: mean(fs.map((f) => f.p95)),
      };
    };
    console.log('');
    for (const t of TARGETS) {
      const s = summary(t);
      console.log(
        `${t.padEnd(8)}: ${s.rate.toFixed(0)} deliveries/s (worker CPU ${s.cpu.toFixed(3)} ms per delivery); commit-to-first-attempt median ${s.commitMedian.toFixed(1)} ms, p95 ${s.commitP95.toFixed(1)} ms (from Event.createdAt: p95 ${s.createdP95.toFixed(1)} ms)`,
      );
    }
    const p = results.project ? summary('project') : null;
    const b = results.baseline ? summary('baseline') : null;
    if (p && b) console.log(`ratio project/baseline: throughput ${(p.rate / b.rate).toFixed(3)}, worker CPU per delivery ${(p.cpu / b.cpu).toFixed(2)}x, p95 latency ${(p.commitP95 / b.commitP95).toFixed(2)}x`);
    const int = (x: number) => Math.round(x).toLocaleString('en-US');
    reportResult({
      target: `Webhook deliveries per worker (${ENDPOINTS} endpoints, order kept)`,
      project: p ? `${int(p.rate)}/s` : '-',
      baseline: b ? `${int(b.rate)}/s` : '-',
      ratio: p && b ? (p.rate / b.rate).toFixed(2) : '-',
      goal: '>= 1,000/s',
      meets: p !== null && p.rate >= 1000,
    });
    reportResult({
      target: 'Webhook commit-to-first-attempt p95',
      project: p ? `${p.commitP95.toFixed(1)} ms` : '-',
      baseline: b ? `${b.commitP95.toFixed(1)} ms` : '-',
      ratio: p && b ? `${(p.commitP95 / b.commitP95).toFixed(2)}x` : '-',
      goal: '<= 50 ms',
      meets: p !== null && p.commitP95 <= 50,
    });
  } finally {
    await client.end().catch(() => {});
    await receiver?.stop();
    for (const c of children) c.kill('SIGKILL');
    await database.drop();
    clearTimeout(watchdog);
  }
}

runBench(main);
