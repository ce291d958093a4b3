// Availability bench: GET /v1/availability over a large fleet (default 10,000 vehicles and
// 1,000,000 bookings, generated inside a throwaway PostgreSQL database by SQL).
//
// Project side: the project server (bench/serve-app.ts: buildApp over openDatabase, webhook
// worker off) in a child process; this process sends GET /v1/availability?start_at&end_at
// with a test secret key and times each answer (REST adapter -> GraphQL -> the domain's
// searchAvailability -> one Prisma query through the tenant-scoped client).
// Baseline side: the best bare SQL for the same answer, run by `pg` from this process: one
// statement, active vehicles of the business and environment with NOT EXISTS a blocking
// booking overlapping the period (the exclusion constraint's predicate minus expired holds),
// newest first, page size + 1 rows, turned into the same JSON list the API answers (checked
// equal to the project's answer for every period). A GiST `tstzrange && tstzrange` probe on
// the exclusion constraint's index gives the same answer but was slower than the btree
// probe, so the baseline uses the btree form.
//
// Both sides reach PostgreSQL through a counting proxy (bench/pg-statement-counter.ts), which
// also times each side's statements from the database's side (request sent -> ReadyForQuery).
// Requests alternate project/baseline, one at a time, several periods (busy and quiet ones);
// per period the median and p95 of per-request latency are printed. The target: the project's
// answer time at most 1.3x the bare SQL's (sum over the periods of the per-period medians).
//
// Env: BENCH_VEHICLES (10000), BENCH_BOOKINGS (1000000), BENCH_REPS (30 per period and
//      side), BENCH_WARMUP (5), TEST_POSTGRES_URL (server to create the throwaway database on).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';
import { createTestPostgresDatabase } from '../test/support/postgres.ts';
import { envInt } from './bench-env.ts';
import { generateFleet, migrateAndCreateBusiness, NOW } from './bench-data.ts';
import { killChildren, percentiles, startChildServer, runBench } from './harness.ts';
import { startStatementCounter } from './pg-statement-counter.ts';
import { reportResult } from './result.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const VEHICLES = envInt('BENCH_VEHICLES', 10_000);
const BOOKINGS = envInt('BENCH_BOOKINGS', 1_000_000);
const REPS = envInt('BENCH_REPS', 30);
const WARMUP = envInt('BENCH_WARMUP', 5);
const PAGE = 10; // the API's default page size
const GOAL = 1.3;

const DAY = 86_400_000;
const at = (days: number) => new Date(Math.floor((NOW.getTime() + days * DAY) / 3_600_000) * 3_600_000);
/** Busy and quiet periods: near term, a long one (almost every vehicle busy), past, after every booking. */
const PERIODS = [
  { name: 'tomorrow, 1 day', startAt: at(1), endAt: at(2) },
  { name: 'in 8 days, 3 days', startAt: at(8), endAt: at(11) },
  { name: 'in 60 days, 14 days', startAt: at(60), endAt: at(74) },
  { name: 'in 90 days, 30 days', startAt: at(90), endAt: at(120) },
  { name: '200 days ago, 5 days', startAt: at(-200), endAt: at(-195) },
  { name: 'in 400 days, 3 days', startAt: at(400), endAt: at(403) },
];

// The best bare SQL: an anti-join probing each candidate vehicle's bookings on the index.
const BARE_SQL = `
  SELECT v.* FROM "Vehicle" v
   WHERE v."businessId" = $1 AND v.livemode = $2 AND v.status = 'active'
     AND NOT EXISTS (
       SELECT 1 FROM "Booking" b
        WHERE b."vehicleId" = v.id AND b."endAt" > $3 AND b."startAt" < $4
          AND b.state NOT IN ('canceled', 'refunded')
          AND NOT (b.state IN ('pending_payment', 'checkout_started') AND b."holdExpiresAt" <= $5))
   ORDER BY v.id DESC
   LIMIT ${PAGE + 1}`;

function presentVehicle(v: Record<string, any>) {
  return {
    object: 'vehicle', id: v.id, livemode: v.livemode, name: v.name, make: v.make, model: v.model, year: v.year, status: v.status,
    currency: v.currency, daily_rate_cents: v.dailyRateCents, deposit_cents: v.depositCents, included_miles: v.includedMiles,
    extra_mile_fee_cents: v.extraMileFeeCents, unlimited_miles_daily_cents: v.unlimitedMilesDailyCents,
    weekend_rate_cents: v.weekendRateCents, weekend_days: v.weekendDays, seasonal_rates: v.seasonalRates, location: v.location,
    delivery_options: v.deliveryOptions, access_method: v.accessMethod, minimum_age: v.minimumAge, photos: v.photos, features: v.features,
    metadata: v.metadata, created_at: (v.createdAt as Date).toISOString(),
    // The vehicle's table: an active vehicle may be archived (only active ones are available).
    next_states: v.status === 'active' ? ['archived'] : [],
  };
}

/** JSON with object keys sorted, to compare answers whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
}

async function main() {
  const database = await createTestPostgresDatabase();
  const budgetMs = (600 + (BOOKINGS / 1_000_000) * 900 + PERIODS.length * (REPS + WARMUP) * 2 * 2) * 1000;
  const watchdog = setTimeout(() => {
    console.error(`bench: exceeded its ${budgetMs / 1000} s budget; stopping`);
    killChildren();
    void database.drop().finally(() => process.exit(2));
  }, budgetMs);
  watchdog.unref();
  const projectProxy = await startStatementCounter({ host: '127.0.0.1', port: Number(new URL(database.url).port || 5432) });
  const baselineProxy = await startStatementCounter({ host: '127.0.0.1', port: Number(new URL(database.url).port || 5432) });
  const via = (port: number) => Object.assign(new URL(database.url), { port: String(port) }).toString();
  let baseline: pg.Client | undefined;
  try {
    const tenant = await migrateAndCreateBusiness(database.url);
    const seconds = await generateFleet(database.url, tenant, { vehicles: VEHICLES, bookings: BOOKINGS, customers: Math.max(100, Math.ceil(BOOKINGS / 20)), payments: false });
    console.log(`bench: GET /v1/availability, ${VEHICLES} vehicles, ${BOOKINGS} bookings (generated in ${seconds.toFixed(0)} s), page ${PAGE}, ${REPS} requests per period and side after ${WARMUP} warm-up`);

    const server = await startChildServer(path.join(here, 'serve-app.ts'), { ...process.env, DATABASE_URL: via(projectProxy.port), PORT: '0', NODE_ENV: 'production', WEBHOOK_WORKER: 'off', REDIS_URL: '', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
    baseline = new pg.Client({ connectionString: via(baselineProxy.port) });
    await baseline.connect();
    const headers = { authorization: `Bearer ${tenant.testSecretKey}` };
    const client = new Agent({ connections: 1, keepAliveTimeout: 60_000 });

    const project = async (p: (typeof PERIODS)[number]) => {
      const url = `http://127.0.0.1:${server.port}/v1/availability?start_at=${p.startAt.toISOString()}&end_at=${p.endAt.toISOString()}`;
      // undici's request over a kept-alive connection: the client's own cost (fetch's is about a
      // millisecond) is not the project's, and the bare SQL side has none.
      const res = await request(url, { headers, dispatcher: client });
      const body = await res.body.json();
      if (res.statusCode !== 200) throw new Error(`project answered ${res.statusCode} ${JSON.stringify(body)}`);
      return body;
    };
    const bare = async (p: (typeof PERIODS)[number]) => {
      const { rows } = await baseline!.query(BARE_SQL, [tenant.businessId, false, p.startAt, p.endAt, new Date()]);
      return { object: 'list', data: rows.slice(0, PAGE).map(presentVehicle), has_more: rows.length > PAGE, url: '/v1/availability' };
    };

    interface Side { ms: number[]; dbMs: number[]; statements: number[] }
    const rows: { period: string; free: number; same: boolean; project: Side; baseline: Side }[] = [];
    for (const period of PERIODS) {
      const first = await project(period);
      const same = canonical(first) === canonical(await bare(period));
      for (let i = 0; i < WARMUP; i++) { await project(period); await bare(period); }
      const sides: Record<'project' | 'baseline', Side> = { project: { ms: [], dbMs: [], statements: [] }, baseline: { ms: [], dbMs: [], statements: [] } };
      for (let i = 0; i < REPS; i++) {
        const order = i % 2 === 0 ? (['project', 'baseline'] as const) : (['baseline', 'project'] as const);
        for (const side of order) {
          const proxy = side === 'project' ? projectProxy : baselineProxy;
          proxy.reset();
          const t = performance.now();
          await (side === 'project' ? project(period) : bare(period));
          sides[side].ms.push(performance.now() - t);
          sides[side].dbMs.push(proxy.busyMs());
          sides[side].statements.push(proxy.count());
        }
      }
      rows.push({ period: period.name, free: (first as { data: unknown[] }).data.length, same, ...sides });
    }
    await server.stop();

    console.log('');
    console.log('period                  free  project p50/p95 ms (db p50)   bare SQL p50/p95 ms (db p50)   ratio p50  same answer');
    let projectTotal = 0;
    let bareTotal = 0;
    let projectDb = 0;
    let bareDb = 0;
    let allSame = true;
    for (const r of rows) {
      const p = percentiles(r.project.ms);
      const b = percentiles(r.baseline.ms);
      const pd = percentiles(r.project.dbMs).p50;
      const bd = percentiles(r.baseline.dbMs).p50;
      projectTotal += p.p50; bareTotal += b.p50; projectDb += pd; bareDb += bd;
      allSame &&= r.same;
      console.log(
        `${r.period.padEnd(22)} ${String(r.free).padStart(4)}  ${p.p50.toFixed(2).padStart(7)} / ${p.p95.toFixed(2).padStart(7)} (${pd.toFixed(2).padStart(6)})      ${b.p50.toFixed(2).padStart(7)} / ${b.p95.toFixed(2).padStart(7)} (${bd.toFixed(2).padStart(6)})      ${(p.p50 / b.p50).toFixed(2).padStart(5)}x  ${r.same ? 'yes' : 'NO'}`,
      );
    }
    const statements = percentiles(rows.flatMap((r) => r.project.statements)).p50;
    console.log('');
    console.log(`project : sum of per-period medians ${projectTotal.toFixed(2)} ms, of which PostgreSQL ${projectDb.toFixed(2)} ms (${statements} statement(s)/request, median)`);
    console.log(`bare SQL: sum of per-period medians ${bareTotal.toFixed(2)} ms, of which PostgreSQL ${bareDb.toFixed(2)} ms (1 statement/request)`);
    console.log(`ratio project/bare: answer time ${(projectTotal / bareTotal).toFixed(2)}x, database time ${(projectDb / bareDb).toFixed(2)}x`);
    if (!allSame) console.log('note: the project and the bare SQL answered differently for some period (see "same answer")');

    reportResult({
      target: `GET /v1/availability answer time (${VEHICLES} vehicles, ${BOOKINGS} bookings)`,
      project: `${projectTotal.toFixed(2)} ms`,
      baseline: `${bareTotal.toFixed(2)} ms`,
      ratio: `${(projectTotal / bareTotal).toFixed(2)}x`,
      goal: `<= ${GOAL}x bare SQL`,
      meets: allSame && projectTotal <= GOAL * bareTotal,
    });
    reportResult({
      target: `GET /v1/availability database time (${VEHICLES} vehicles, ${BOOKINGS} bookings)`,
      project: `${projectDb.toFixed(2)} ms`,
      baseline: `${bareDb.toFixed(2)} ms`,
      ratio: `${(projectDb / bareDb).toFixed(2)}x`,
      goal: `<= ${GOAL}x bare SQL`,
      meets: allSame && projectDb <= GOAL * bareDb,
    });
  } finally {
    killChildren();
    await baseline?.end().catch(() => {});
    await projectProxy.close();
    await baselineProxy.close();
    await database.drop();
    clearTimeout(watchdog);
  }
}

runBench(main);
