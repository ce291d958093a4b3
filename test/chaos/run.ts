// The chaos test (`npm run chaos`; a shortened run is test/chaos.test.ts): the service on a
// private PostgreSQL and Redis, several API processes and the webhook worker, a mixed workload
// with Idempotency-Keys, and faults drawn from a seed (SIGKILL of API processes and of the
// worker, Redis killed, PostgreSQL restarted in immediate mode). Afterwards every invariant is
// proved from the API and the database (invariants.ts), a summary is printed and the whole
// record is written as JSON. docs/chaos-testing.md describes it.
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { createBusiness } from '../../src/platform/businesses.ts';
import { ChaosClient, type Effect, type Op } from './client.ts';
import { planFaults, runFaults } from './faults.ts';
import { buildService, freePort, npmScriptRuntime, ServiceProcess, startPrivatePostgres, startPrivateRedis } from './infra.ts';
import { checkInvariants, deliveryStats, READY_LIMIT_MS, type Books, type InvariantResult, type ReplayProbe, type RunData } from './invariants.ts';
import { startWebhookReceiver } from './receiver.ts';
import { freshSeed, Rng } from './rng.ts';
import { runWorkload, type WorkloadResult } from './workload.ts';

export interface ChaosOptions {
  seed: number;
  durationMs: number;
  apis: number;
  lanes: number;
  /** Mean gaps between kills of an API process and of the worker. */
  apiKillEveryMs: number;
  workerKillEveryMs: number;
  redisKills: number;
  postgresRestarts: number;
  /** IDEMPOTENCY_LEASE_MS of the API processes: how soon a retry takes over a key a killed process held. */
  idempotencyLeaseMs: number;
  /** How long a call keeps retrying (network errors, 503, idempotency_key_in_use) before the client gives up on it. */
  opDeadlineMs: number;
  /** How long after the workload the books and the webhook queue may take to settle. */
  settleMs: number;
  /** Where the JSON record of the run is written. */
  reportPath: string;
  log: (line: string) => void;
}

export interface ChaosReport {
  seed: number;
  options: Omit<ChaosOptions, 'log'>;
  workload: WorkloadResult & { durationMs: number };
  invariants: InvariantResult[];
  failed: string[];
  summary: string;
  reportPath: string;
}

export function defaultOptions(overrides: Partial<ChaosOptions> = {}): ChaosOptions {
  const seed = overrides.seed ?? freshSeed();
  const durationMs = overrides.durationMs ?? 300_000;
  return {
    seed,
    durationMs,
    apis: 3,
    lanes: 8,
    apiKillEveryMs: 6_000,
    workerKillEveryMs: 15_000,
    redisKills: Math.max(1, Math.round(durationMs / 120_000)),
    postgresRestarts: Math.max(1, Math.round(durationMs / 90_000)),
    idempotencyLeaseMs: 3_000,
    opDeadlineMs: 30_000,
    settleMs: 30_000,
    reportPath: path.join(os.tmpdir(), `chaos-report-${seed}.json`),
    log: (line) => console.log(line),
    ...overrides,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Run `fn` over `items`, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  }));
  return results;
}

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log;
  const rng = new Rng(o.seed);
  log(`chaos: seed ${o.seed} (CHAOS_SEED=${o.seed} repeats this schedule), ${o.durationMs / 1000} s of workload, ${o.apis} API processes + 1 worker, ${o.lanes} stories at once`);
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const setupBegan = Date.now();
    await buildService();
    const [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    cleanups.push(() => postgres.stop(), () => redis.stop('SIGKILL'));
    log(`chaos: private PostgreSQL on ${postgres.port}, Redis on ${redis.port}`);

    // Migrated once here, so the processes start on a ready schema.
    const db = await openDatabase({ databaseUrl: postgres.url });
    const business = await createBusiness(db.prisma, { name: 'Chaos Rentals' });
    await db.close();
    const sql = new pg.Client({ connectionString: postgres.url });
    let sqlConnected = false;
    const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> => {
      if (!sqlConnected) {
        await sql.connect();
        sqlConnected = true;
      }
      return (await sql.query<R>(text, values)).rows;
    };
    cleanups.push(() => sql.end().catch(() => {}));

    const receiver = await startWebhookReceiver(rng.fork('receiver'), 0.05);
    cleanups.push(() => receiver.close());

    const env = {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      WEBHOOK_WORKER: 'off',
      DATABASE_POOL_SIZE: '10',
      SEED_DEMO: '0',
      RATE_LIMIT_TEST: '1000000',
      // Webhook retries in seconds rather than minutes, and a killed worker's claims free again soon.
      SANDBOX_RETRY_SCALE: '0.002',
      WEBHOOK_LEASE_MS: '15000',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_POLL_MS: '500',
      IDEMPOTENCY_LEASE_MS: String(o.idempotencyLeaseMs),
      // The money sweep settles what a killed process left within the settling time, not minutes
      // later (the sandbox's calls answer at once, so a few seconds is past any call in flight).
      HOLD_SWEEP_MS: '1000',
      PROCESSOR_SWEEP_AFTER_MS: '5000',
    };
    const [apiRuntime, workerRuntime] = await Promise.all([npmScriptRuntime('start'), npmScriptRuntime('worker')]);
    const apis: ServiceProcess[] = [];
    for (let i = 1; i <= o.apis; i++) apis.push(new ServiceProcess(`api-${i}`, 'api', await freePort(), apiRuntime, env));
    const worker = new ServiceProcess('worker', 'worker', 0, workerRuntime, env);
    const all = [...apis, worker];
    cleanups.push(() => Promise.all(all.map((p) => p.stop())));
    const firstStarts = await Promise.all(all.map((p) => p.start()));
    log(`chaos: processes serving after ${firstStarts.map((ms, i) => `${all[i].name} ${(ms / 1000).toFixed(1)} s`).join(', ')} (setup ${((Date.now() - setupBegan) / 1000).toFixed(1)} s)`);

    // The integration's setup: a webhook endpoint for every event, and the shared vehicles races are for.
    const setupOps: Op[] = [];
    const admin = new ChaosClient({ apis, key: business.test_secret_key, opDeadlineMs: 60_000, ops: setupOps });
    const setupRng = rng.fork('setup');
    const need = async (op: Promise<Op>, status: number) => {
      const done = await op;
      if (done.final?.status !== status) throw new Error(`chaos setup: ${done.method} ${done.path} answered ${done.final?.status}: ${JSON.stringify(done.final?.body)}`);
      return done.final.body;
    };
    const endpoint = await need(admin.call(setupRng, 'setup', 'create_endpoint', 'POST', '/v1/developers/webhooks', { url: receiver.url, enabled_events: ['*'], description: 'chaos receiver' }, 'setup-endpoint'), 201);
    receiver.useSecret(endpoint.secret);
    const raceVehicles: string[] = [];
    for (let i = 0; i < Math.max(3, o.apis + 1); i++) {
      const v = await need(admin.call(setupRng, 'setup', 'create_vehicle', 'POST', '/v1/vehicles', { name: `Chaos Race Car ${i}`, daily_rate_cents: 5900, deposit_cents: 20000, included_miles: 200, extra_mile_fee_cents: 35 }, `setup-vehicle-${i}`), 201);
      raceVehicles.push(v.id);
    }

    // The run: the workload and the faults side by side.
    const ops: Op[] = [];
    const client = new ChaosClient({ apis, key: business.test_secret_key, opDeadlineMs: Math.max(o.opDeadlineMs, o.idempotencyLeaseMs * 4), ops });
    const plan = planFaults(rng.fork('faults'), { durationMs: o.durationMs, apis: o.apis, apiKillEveryMs: o.apiKillEveryMs, workerKillEveryMs: o.workerKillEveryMs, redisKills: o.redisKills, postgresRestarts: o.postgresRestarts });
    log(`chaos: ${plan.length} faults planned: ${countBy(plan.map((f) => f.kind))}`);
    const probe = async (api: ServiceProcess) => {
      try {
        const res = await fetch(`${api.baseUrl}/v1/vehicles?limit=1`, { headers: { authorization: `Bearer ${business.test_secret_key}` }, signal: AbortSignal.timeout(5_000) });
        await res.arrayBuffer();
        return res.status === 200;
      } catch {
        return false;
      }
    };
    const loadAtStart = os.loadavg()[0];
    const began = Date.now();
    const raceBase = Math.ceil((began + 2 * 86_400_000) / 3_600_000) * 3_600_000;
    const [workload, faults] = await Promise.all([
      runWorkload({ client, rng: rng.fork('workload'), raceVehicles, raceWindowHours: Math.max(72, Math.round(o.durationMs / 1000)), raceBase, lanes: o.lanes, tripShare: 0.3, burstShare: 0.1, stopAt: began + o.durationMs }),
      runFaults(plan, { apis, worker, redis, postgres, probe }, began),
    ]);
    const workloadMs = Date.now() - began;
    const loadAtEnd = os.loadavg()[0];
    log(`chaos: workload over after ${(workloadMs / 1000).toFixed(1)} s: ${workload.stories} stories, ${ops.length} calls; ${faults.length} faults carried out`);

    // Settle: every process is up again; pending money steps and queued webhooks get their chance to finish.
    await Promise.all(all.map((p) => p.supervising));
    for (const p of all) if (!p.alive) throw new Error(`chaos: ${p.name} is not running after the faults: ${JSON.stringify(p.unexpectedExits, null, 1)}`);
    // The receiver stops asking for retries, so the queue drains; what is pending (money steps
    // a sweeper should finish, webhook messages) and what the database holds are read in one
    // snapshot, so every event read had its messages delivered when none was pending.
    receiver.stopFailing();
    const settleBegan = Date.now();
    type Snapshot = {
      pending: { transactions: number; messages: number };
      events: { id: string; type: string; requestId: string | null; idempotencyKey: string | null }[];
      bookings: { id: string; vehicleId: string; state: string; startAt: Date; endAt: Date; chaosKey: string | null }[];
      vehicles: { id: string; chaosKey: string }[];
      charges: { id: string; chaosKey: string }[];
    };
    let snapshot: Snapshot;
    for (;;) {
      await query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const [{ n: transactions }] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM "Transaction" WHERE "businessId" = $1 AND status = 'pending'`, [business.business_id]);
        const [{ n: messages }] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM "WebhookMessage" WHERE "endpointId" = $1 AND state = 'pending'`, [endpoint.id]);
        const events = await query<Snapshot['events'][number]>(
          `SELECT id, type, "requestId", "idempotencyKey" FROM "Event" WHERE "businessId" = $1 AND livemode = false AND "createdAt" >= (SELECT "createdAt" FROM "WebhookEndpoint" WHERE id = $2) ORDER BY "createdAt", id`,
          [business.business_id, endpoint.id],
        );
        const bookings = await query<Snapshot['bookings'][number]>(
          `SELECT id, "vehicleId", state::text, "startAt", "endAt", metadata->>'chaos_key' AS "chaosKey" FROM "Booking" WHERE "businessId" = $1 AND livemode = false`,
          [business.business_id],
        );
        const keyed = (table: string) => query<{ id: string; chaosKey: string }>(`SELECT id, metadata->>'chaos_key' AS "chaosKey" FROM "${table}" WHERE "businessId" = $1 AND metadata ? 'chaos_key'`, [business.business_id]);
        snapshot = { pending: { transactions, messages }, events, bookings, vehicles: await keyed('Vehicle'), charges: await keyed('Charge') };
      } finally {
        await query('COMMIT');
      }
      if ((snapshot.pending.transactions === 0 && snapshot.pending.messages === 0) || Date.now() - settleBegan > o.settleMs) break;
      await sleep(500);
    }
    // Deliveries up to now; one of an event committed after the snapshot is left out (it is no phantom).
    const knownIds = new Set(snapshot.events.map((e) => e.id));
    let deliveries = receiver.deliveries.slice();
    const later = deliveries.filter((d) => d.valid && !knownIds.has(d.webhookId)).map((d) => d.webhookId);
    if (later.length) {
      const exist = new Set((await query<{ id: string }>(`SELECT id FROM "Event" WHERE id = ANY($1)`, [later])).map((r) => r.id));
      deliveries = deliveries.filter((d) => !exist.has(d.webhookId) || knownIds.has(d.webhookId));
    }
    const { events, bookings, vehicles, charges } = snapshot;
    log(`chaos: settled in ${((Date.now() - settleBegan) / 1000).toFixed(1)} s (still pending: ${snapshot.pending.transactions} transactions, ${snapshot.pending.messages} webhook messages)`);

    // What the API shows.
    const reader = new ChaosClient({ apis, key: business.test_secret_key, opDeadlineMs: 30_000, ops: [] });
    const readRng = rng.fork('reads');
    const get = async (p: string) => {
      const op = await reader.call(readRng, 'check', 'read', 'GET', p);
      if (op.final?.status === 404) return null;
      if (op.final?.status !== 200) throw new Error(`chaos check: GET ${p} answered ${op.final?.status}: ${JSON.stringify(op.final?.body)}`);
      return op.final.body;
    };
    const effects = ops.filter((op) => op.effect).map((op) => op.effect!);
    const states: RunData['api']['states'] = { booking: {}, payment: {}, deposit: {}, charge: {}, vehicle: {} };
    const objectPath: Record<Effect['object'], (id: string) => string> = {
      booking: (id) => `/v1/bookings/${id}`,
      payment: (id) => `/v1/bookings/${id}/payment`,
      deposit: (id) => `/v1/bookings/${id}/deposit`,
      charge: (id) => `/v1/charges/${id}`,
      vehicle: (id) => `/v1/vehicles/${id}`,
    };
    const unique = [...new Map(effects.map((e) => [`${e.object}:${e.id}`, e])).values()];
    await inBatches(unique, 8, async (e) => {
      const body = await get(objectPath[e.object](e.id));
      states[e.object][e.id] = body === null ? null : (body.state ?? body.status ?? 'exists');
    });
    const books: Books[] = await inBatches(bookings, 6, async (b) => {
      const [booking, payment, deposit, chargeList, transactions] = await Promise.all([
        get(`/v1/bookings/${b.id}`),
        get(`/v1/bookings/${b.id}/payment`),
        get(`/v1/bookings/${b.id}/deposit`),
        get(`/v1/bookings/${b.id}/charges?limit=100`),
        get(`/v1/bookings/${b.id}/transactions?limit=100`),
      ]);
      return { booking, payment, deposit, charges: chargeList?.data ?? [], transactions: transactions?.data ?? [] };
    });
    // Each keyed call the client acted on, sent again: the key must replay that answer.
    const replayable = ops.filter((op) => op.key && op.settled && op.final && op.final.status < 500);
    const replays: ReplayProbe[] = await inBatches(replayable, 8, async (op) => {
      const again = await reader.call(readRng, 'replay', op.name, 'POST', op.path, op.body, op.key);
      return { opId: op.id, status: again.final?.status ?? null, body: again.final?.body, replayed: again.final?.replayed ?? false };
    });

    const run: RunData = {
      ops,
      faults,
      postgresDown: faults.flatMap((f) => (f.down ? [f.down] : [])),
      processes: all.map((p) => ({ name: p.name, kind: p.kind, restarts: p.restarts, unexpectedExits: p.unexpectedExits, logCounts: p.logCounts, logCauses: p.logCauses })),
      deliveries,
      db: {
        events,
        bookings: bookings.map((b) => ({ id: b.id, vehicleId: b.vehicleId, state: b.state, startAt: b.startAt.getTime(), endAt: b.endAt.getTime() })),
        keyedBookings: bookings.filter((b) => b.chaosKey).map((b) => ({ id: b.id, chaosKey: b.chaosKey! })),
        vehicles,
        charges,
      },
      api: { states, books, replays },
    };
    const invariants = checkInvariants(run);
    const failed = invariants.filter((i) => i.violations.length > 0).map((i) => i.name);
    const summary = summarize(o, run, invariants, { load: [loadAtStart, loadAtEnd], workload, workloadMs, firstStarts: Object.fromEntries(all.map((p, i) => [p.name, firstStarts[i]])) });
    await writeFile(o.reportPath, JSON.stringify({ seed: o.seed, options: { ...o, log: undefined }, workload, invariants, run: { ...run, ops: run.ops } }, null, 1));
    log(summary);
    log(`chaos: the whole record (every call, attempt, fault and delivery) is in ${o.reportPath}`);
    const { log: _log, ...options } = o;
    return { seed: o.seed, options, workload: { ...workload, durationMs: workloadMs }, invariants, failed, summary, reportPath: o.reportPath };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function summarize(o: ChaosOptions, run: RunData, invariants: InvariantResult[], extra: { load: number[]; workload: WorkloadResult; workloadMs: number; firstStarts: Record<string, number> }): string {
  const lines: string[] = [];
  const attempts = run.ops.flatMap((op) => op.attempts);
  const statuses = countBy(attempts.map((a) => (a.status === null ? a.failure! : String(a.status))).sort());
  const retries = run.ops.reduce((s, op) => s + Math.max(0, op.attempts.length - 1), 0);
  const retriedOps = run.ops.filter((op) => op.attempts.length > 1).length;
  lines.push('', `=== chaos report: seed ${o.seed} ===`);
  lines.push(`machine: ${os.cpus().length} cores, load average ${extra.load.map((l) => l.toFixed(1)).join(' / ')} (at the start / at the end of the workload)`);
  lines.push(`workload: ${seconds(extra.workloadMs)}, ${extra.workload.stories} stories (${extra.workload.races} races, ${extra.workload.bursts} bursts, ${extra.workload.trips} trips), ${run.ops.length} calls (${run.ops.filter((op) => op.key).length} with an Idempotency-Key)`);
  lines.push(`calls by kind: ${countBy(run.ops.map((op) => op.name).sort())}`);
  lines.push(`requests: ${attempts.length} attempts; ${retries} retries over ${retriedOps} calls; answers: ${statuses}`);
  lines.push(`replays after the run: ${run.api.replays.length}, of which ${run.api.replays.filter((r) => r.replayed).length} answered Idempotent-Replayed`);
  const done = run.faults.filter((f) => !f.skipped);
  const skipped = run.faults.filter((f) => f.skipped);
  lines.push(`faults: ${countBy(done.map((f) => f.kind))}${skipped.length ? `; skipped: ${countBy(skipped.map((f) => `${f.kind} (${f.skipped})`))}` : ''}`);
  for (const kind of ['api', 'worker'] as const) {
    const restarts = run.processes.filter((p) => p.kind === kind).flatMap((p) => p.restarts.map((r) => r.readyMs));
    if (restarts.length) lines.push(`restarts (${kind}): ${restarts.length}, time to serve again: max ${seconds(Math.max(...restarts))}, median ${seconds(restarts.sort((a, b) => a - b)[Math.floor(restarts.length / 2)])} (limit ${seconds(READY_LIMIT_MS)})`);
  }
  lines.push(`first starts: ${Object.entries(extra.firstStarts).map(([n, ms]) => `${n} ${seconds(ms)}`).join(', ')}`);
  for (const f of run.faults.filter((f) => f.kind === 'restart_postgres')) {
    const during = f.down ? attempts.filter((a) => a.startedAt < f.down!.to + 1_000 && a.startedAt + a.ms > f.down!.from) : [];
    lines.push(`PostgreSQL restart at ${seconds(f.startedAt)}: pg_ctl ${f.postgresDownMs ?? '?'} ms; pools served again after ${Object.entries(f.poolRecoveryMs ?? {}).map(([n, ms]) => `${n} ${typeof ms === 'number' ? `${ms} ms` : ms}`).join(', ')}${f.error ? `; error: ${f.error}` : ''}`);
    lines.push(`  attempts in flight while it restarted: ${during.length}: ${countBy(during.map((a) => (a.status === null ? a.failure! : `${a.status}${a.code ? ` ${a.code}` : ''}`)).sort())}`);
  }
  for (const p of run.processes) {
    const counts = Object.entries(p.logCounts ?? {});
    if (counts.length) lines.push(`${p.name} log lines: ${counts.map(([k, n]) => `${k} ×${n}`).join(', ')}`);
  }
  const d = deliveryStats(run);
  lines.push(`webhooks: ${d.events} events, ${d.delivered} delivered (2xx), ${d.deliveries} deliveries received, ${d.duplicates} duplicates (${d.duplicatesAfterSuccess} after a 2xx), ${d.invalid} failed verification`);
  lines.push('invariants:');
  for (const inv of invariants) {
    lines.push(`  ${inv.violations.length ? 'FAIL' : 'pass'} ${inv.name}: ${inv.description} (${inv.checked} checked${inv.violations.length ? `, ${inv.violations.length} violations` : ''})`);
    for (const v of inv.violations.slice(0, 6)) {
      lines.push(`       - ${v.message}`);
      if (v.evidence !== undefined) lines.push(`         ${JSON.stringify(v.evidence).slice(0, 600)}`);
    }
    if (inv.violations.length > 6) lines.push(`       ... ${inv.violations.length - 6} more in the JSON record`);
  }
  const failed = invariants.filter((i) => i.violations.length);
  lines.push(failed.length ? `RESULT: ${failed.length} of ${invariants.length} invariants violated (${failed.map((i) => i.name).join(', ')}); seed ${o.seed}` : `RESULT: all ${invariants.length} invariants hold; seed ${o.seed}`);
  return lines.join('\n');
}

/** `npm run chaos [-- --duration 300 --seed N --apis 3 --lanes 8 --report file.json]` */
async function main() {
  const { values } = parseArgs({
    options: { duration: { type: 'string' }, seed: { type: 'string' }, apis: { type: 'string' }, lanes: { type: 'string' }, 'kill-every': { type: 'string' }, report: { type: 'string' } },
    strict: true,
  });
  const num = (raw: string | undefined, name: string) => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got '${raw}'`);
    return n;
  };
  const seed = num(values.seed ?? process.env.CHAOS_SEED, 'seed');
  const duration = num(values.duration ?? process.env.CHAOS_DURATION, 'duration');
  const options = defaultOptions({
    ...(seed !== undefined ? { seed } : {}),
    ...(duration !== undefined ? { durationMs: duration * 1000 } : {}),
    ...(values.apis ? { apis: num(values.apis, 'apis')! } : {}),
    ...(values.lanes ? { lanes: num(values.lanes, 'lanes')! } : {}),
    ...(values['kill-every'] ? { apiKillEveryMs: num(values['kill-every'], 'kill-every')! * 1000 } : {}),
  });
  if (values.report) options.reportPath = path.resolve(values.report);
  const report = await runChaos(options);
  process.exit(report.failed.length ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  main().catch((err) => {
    console.error(`chaos: ${(err as Error).stack ?? err}`);
    process.exit(2);
  });
}
