// Webhooks bench (`npm run bench:webhooks`): the delivery worker (`src/worker.ts`, the code
// `npm run worker` runs) against a bare node + pg baseline doing the same work
// (bench/webhook-bare-worker.ts), one at a time, on a throwaway PostgreSQL database.
//
// Three processes besides PostgreSQL: this driver (inserts events, collects figures), the
// worker, and a loopback receiver answering 204 (bench/webhook-receiver.ts), each with its
// own event loop. Per worker:
//   (i)  throughput: BENCH_EVENTS events committed at once (one transaction, one NOTIFY)
//        with the worker idle and listening; deliveries per second from that commit to the
//        last arrival at the receiver (and to the last attempt recorded in the database).
//   (ii) latency: one event per transaction at BENCH_RATE/s for BENCH_LATENCY_SECONDS with
//        the worker running; per event, receiver arrival time - Event.createdAt (and -
//        the time the driver saw its commit acknowledged); median, p95, max.
// Events are inserted with plain SQL writing the rows recordEvent writes (an Event, one
// WebhookMessage due at its createdAt, pg_notify at commit): through Prisma recordEvent
// costs ~20 ms per event on these machines, which would throttle the inserting side of (i)
// and put the producer's own transaction time into (ii).
// On these shared 2-core machines read the ratios, not the absolute figures.
//
// Env: BENCH_EVENTS (2000), BENCH_RATE (50 events/s), BENCH_LATENCY_SECONDS (5),
//      BENCH_ROUNDS (1; rounds alternate the order), BENCH_TARGETS (project,baseline),
//      TEST_POSTGRES_URL (server to create the throwaway database on), DATABASE_POOL_SIZE.
import { spawn, type ChildProcess } from 'node:child_process';
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

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const EVENTS = envInt('BENCH_EVENTS', 2000);
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

/** Arrivals reported by the receiver child: first arrival per webhook-id, and repeats. */
const arrivals = new Map<string, number>();
let duplicates = 0;
let arrivalWaiter: (() => void) | null = null;
function onHits(message: unknown) {
  for (const [id, at] of (message as { hits: [string, number][] }).hits) {
    if (arrivals.has(id)) duplicates++;
    else arrivals.set(id, at);
  }
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

interface Scope {
  businessId: string;
  endpointId: string;
}

/** `n` events and their messages in one transaction, as n recordEvent calls would write them. */
async function insertBatch(client: pg.Client, scope: Scope, first: number, n: number): Promise<{ ids: string[]; committedAt: number }> {
  const ids = Array.from({ length: n }, () => newId('event'));
  const messageIds = Array.from({ length: n }, () => newId('webhookMessage'));
  const data = Array.from({ length: n }, (_, i) => JSON.stringify({ object: { object: 'test', n: first + i } }));
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO "Event" (id, "businessId", livemode, type, data) SELECT id, $2, false, 'booking.created', d::jsonb FROM unnest($1::text[], $3::text[]) AS t(id, d)`,
    [ids, scope.businessId, data],
  );
  await client.query(
    `INSERT INTO "WebhookMessage" (id, "businessId", livemode, "endpointId", "eventId", "eventType", "nextAttemptAt", "updatedAt")
     SELECT t.mid, e."businessId", e.livemode, $3, e.id, e.type, e."createdAt", now() FROM unnest($1::text[], $2::text[]) AS t(mid, eid) JOIN "Event" e ON e.id = t.eid`,
    [messageIds, ids, scope.endpointId],
  );
  await client.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
  await client.query('COMMIT');
  return { ids, committedAt: now() };
}

/** One event in its own transaction (a single statement); its createdAt and commit time. */
async function insertOne(client: pg.Client, scope: Scope, n: number): Promise<{ id: string; createdAt: number; committedAt: number }> {
  const id = newId('event');
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

// ------------------------------------------------------------------ figures

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

interface Figures {
  perSecond: number;
  recordedPerSecond: number;
  median: number;
  p95: number;
  max: number;
  commitMedian: number;
  commitP95: number;
  sent: number;
  attemptsRecorded: number;
}

async function measure(target: Target, databaseUrl: string, scope: Scope, client: pg.Client, seq: { n: number }): Promise<Figures> {
  const duplicatesBefore = duplicates;
  const worker = await startChild(SCRIPTS[target], { DATABASE_URL: databaseUrl }, /webhook worker \d+/);
  try {
    await sleep(500); // let it settle (its start-up claim found nothing due)

    // (i) throughput
    const batch = await insertBatch(client, scope, seq.n, EVENTS);
    seq.n += EVENTS;
    await waitForArrivals(batch.ids, Math.max(60_000, EVENTS * 30));
    const last = Math.max(...batch.ids.map((id) => arrivals.get(id)!));
    const recorded = await waitForRecorded(client, batch.ids, 60_000);
    const perSecond = EVENTS / ((last - batch.committedAt) / 1000);
    const recordedPerSecond = EVENTS / ((recorded - batch.committedAt) / 1000);

    // (ii) commit-to-first-attempt latency at a modest rate
    const count = RATE * LATENCY_SECONDS;
    const sent: { id: string; createdAt: number; committedAt: number }[] = [];
    const start = now();
    for (let k = 0; k < count; k++) {
      const wait = start + (k * 1000) / RATE - now();
      if (wait > 0) await sleep(wait);
      sent.push(await insertOne(client, scope, seq.n++));
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
    return {
      perSecond,
      recordedPerSecond,
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
    // Migrations (openDatabase applies them), a business, one sandbox endpoint for everything.
    const db = await openDatabase({ databaseUrl: database.url });
    let scope: Scope;
    try {
      const business = await createBusiness(db.prisma, { name: 'Bench Rentals' });
      receiver = await startChild(path.join(here, 'webhook-receiver.ts'), { PORT: '0' }, /READY (\d+)/, true);
      receiver.child.on('message', onHits);
      const endpoint = await db.prisma.webhookEndpoint.create({
        data: {
          id: newId('webhookEndpoint'),
          businessId: business.business_id,
          livemode: false,
          url: `http://127.0.0.1:${receiver.line[1]}/hooks`,
          enabledEvents: ['*'],
          secret: newEndpointSecret(),
        },
      });
      scope = { businessId: business.business_id, endpointId: endpoint.id };
    } finally {
      await db.close();
    }
    await client.connect();

    console.log(
      `bench: webhooks, (i) ${EVENTS} events committed at once, (ii) ${RATE} events/s for ${LATENCY_SECONDS} s one per transaction; ${ROUNDS} round(s); worker pool ${process.env.DATABASE_POOL_SIZE ?? 20}`,
    );
    const results: Partial<Record<Target, Figures[]>> = {};
    const seq = { n: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse();
      for (const target of order) {
        const f = await measure(target, database.url, scope, client, seq);
        (results[target] ??= []).push(f);
        console.log(
          `  round ${round + 1} ${target.padEnd(8)} (i) ${f.perSecond.toFixed(0).padStart(5)} deliveries/s (${f.recordedPerSecond.toFixed(0)}/s to the last attempt recorded)` +
            `  (ii) createdAt->arrival median ${f.median.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, max ${f.max.toFixed(1)} ms` +
            ` (commit acknowledged->arrival median ${f.commitMedian.toFixed(1)} ms, p95 ${f.commitP95.toFixed(1)} ms; ${f.sent} events)`,
        );
      }
    }

    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const summary = (t: Target) => {
      const fs = results[t]!;
      return { rate: mean(fs.map((f) => f.perSecond)), median: mean(fs.map((f) => f.median)), p95: mean(fs.map((f) => f.p95)) };
    };
    console.log('');
    for (const t of TARGETS) {
      const s = summary(t);
      console.log(`${t.padEnd(8)}: ${s.rate.toFixed(0)} deliveries/s; commit-to-first-attempt median ${s.median.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms`);
    }
    if (results.project && results.baseline) {
      const p = summary('project');
      const b = summary('baseline');
      console.log(`ratio project/baseline: throughput ${(p.rate / b.rate).toFixed(3)}, median latency ${(p.median / b.median).toFixed(2)}x, p95 latency ${(p.p95 / b.p95).toFixed(2)}x`);
    }
  } finally {
    await client.end().catch(() => {});
    await receiver?.stop();
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
