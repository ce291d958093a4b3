// Bookings page bench: one GraphQL request for a page of 100 bookings, each with its
// vehicle, customer and payment, and the number of SQL statements it costs, counted on the
// database's side.
//
// Project side: the project server (bench/serve-app.ts, webhook worker off) in a child
// process, reaching PostgreSQL through a counting proxy (bench/pg-statement-counter.ts) that
// counts the frontend protocol's Query ('Q') and Execute ('E') messages. After a warm-up
// (principal cache, schema, plans), the statements of single requests are counted, several
// times. Its answer time is measured by alternating requests with the baseline.
// Baseline side: bare `pg` from this process through a second proxy: one statement joining
// Booking to Vehicle, Customer and (LEFT) Payment for the 101 newest bookings of the
// business and environment, turned into the same GraphQL JSON answer (checked equal).
// Targets: at most 4 statements for the whole request, and a p50 answer time at most 3 times
// the baseline's.
//
// Env: BENCH_VEHICLES (1000), BENCH_BOOKINGS (100000), BENCH_REPS (30), BENCH_WARMUP (5),
//      TEST_POSTGRES_URL (server to create the throwaway database on), BENCH_CPU_PROF (a
//      directory: the project's server runs with --cpu-prof and writes its profile there).
import { createTestPostgresDatabase } from '../test/support/postgres.ts';
import { envInt } from './bench-env.ts';
import { generateFleet, migrateAndCreateBusiness } from './bench-data.ts';
import { cpuSeconds, killChildren, percentiles, runBench, startServer } from './harness.ts';
import { startStatementCounter } from './pg-statement-counter.ts';
import { reportResult } from './result.ts';

const VEHICLES = envInt('BENCH_VEHICLES', 1_000);
const BOOKINGS = envInt('BENCH_BOOKINGS', 100_000);
const REPS = envInt('BENCH_REPS', 30);
const WARMUP = envInt('BENCH_WARMUP', 5);
const PAGE = 100;
const GOAL_STATEMENTS = 4;
const GOAL_P50_RATIO = 3;

// `first` as a variable: the API's cost limit multiplies a literal `first` into the cost.
const QUERY = `query BookingsPage($first: Int!) {
  bookings(first: $first) {
    edges { node {
      id state
      vehicle { id name }
      customer { id name }
      payment { id state }
    } }
    pageInfo { hasNextPage }
  }
}`;

function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
}

async function main() {
  const database = await createTestPostgresDatabase();
  const budgetMs = (300 + (BOOKINGS / 1_000_000) * 900 + (REPS + WARMUP) * 4) * 1000;
  const watchdog = setTimeout(() => {
    console.error(`bench: exceeded its ${budgetMs / 1000} s budget; stopping`);
    killChildren();
    void database.drop().finally(() => process.exit(2));
  }, budgetMs);
  watchdog.unref();
  const pgPort = Number(new URL(database.url).port || 5432);
  const projectProxy = await startStatementCounter({ host: '127.0.0.1', port: pgPort });
  const baselineProxy = await startStatementCounter({ host: '127.0.0.1', port: pgPort });
  const via = (port: number) => Object.assign(new URL(database.url), { port: String(port) }).toString();
  try {
    const tenant = await migrateAndCreateBusiness(database.url);
    const seconds = await generateFleet(database.url, tenant, { vehicles: VEHICLES, bookings: BOOKINGS, customers: Math.max(100, Math.ceil(BOOKINGS / 20)), payments: true });
    console.log(`bench: GraphQL bookings(first: ${PAGE}) with vehicle, customer, payment; ${VEHICLES} vehicles, ${BOOKINGS} bookings (generated in ${seconds.toFixed(0)} s); ${REPS} requests per side after ${WARMUP} warm-up`);

    const server = await startServer('project', 'serve-app.ts', via(projectProxy.port), { env: { WEBHOOK_WORKER: 'off' }, cpuProfDir: process.env.BENCH_CPU_PROF || undefined });
    const bareServer = await startServer('baseline', 'serve-bare-page.ts', via(baselineProxy.port));

    const ask = (port: number, side: string) => async () => {
      const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.testSecretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: QUERY, variables: { first: PAGE } }),
      });
      const body = (await res.json()) as { data?: unknown; errors?: unknown };
      if (res.status !== 200 || body.errors) throw new Error(`${side} answered ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
      return body;
    };
    const project = ask(server.port, 'project');
    const bare = ask(bareServer.port, 'baseline');

    // The relay's claim is a named statement: its text starts with the file's comment lines.
    const RELAY_POLL = /^(?:\s*--[^\n]*\n)*\s*UPDATE "Event" SET "publishedAt"/;
    const same = canonical(await project()) === canonical(await bare());
    for (let i = 0; i < WARMUP; i++) { await project(); await bare(); }

    const ms = { project: [] as number[], baseline: [] as number[] };
    const counts = { project: [] as number[], baseline: [] as number[] };
    let sample: string[] = [];
    let extra: string[] = [];
    let background = 0;
    const cpuBefore = { project: await cpuSeconds(server.pid), baseline: await cpuSeconds(bareServer.pid) };
    for (let i = 0; i < REPS; i++) {
      const order = i % 2 === 0 ? (['project', 'baseline'] as const) : (['baseline', 'project'] as const);
      for (const side of order) {
        const proxy = side === 'project' ? projectProxy : baselineProxy;
        proxy.reset();
        const t = performance.now();
        await (side === 'project' ? project() : bare());
        ms[side].push(performance.now() - t);
        // The live-event relay polls on its own timer; its claim is not the request's.
        const texts = proxy.texts();
        background += texts.filter((t) => RELAY_POLL.test(t)).length;
        counts[side].push(texts.filter((t) => !RELAY_POLL.test(t)).length);
        if (side === 'project' && i === 0) sample = proxy.texts();
        if (side === 'project' && counts.project.at(-1)! > GOAL_STATEMENTS) extra = texts;
      }
    }
    // CPU per request of each server (user + system), steadier than latency on a busy machine.
    const cpuMs = {
      project: ((await cpuSeconds(server.pid)) - cpuBefore.project) * 1000 / REPS,
      baseline: ((await cpuSeconds(bareServer.pid)) - cpuBefore.baseline) * 1000 / REPS,
    };
    await server.stop();
    await bareServer.stop();

    const p = percentiles(ms.project);
    const b = percentiles(ms.baseline);
    const pc = percentiles(counts.project);
    const maxCount = Math.max(...counts.project);
    console.log('');
    console.log(`project : ${pc.p50} statements/request (median; min ${Math.min(...counts.project)}, max ${maxCount}), p50 ${p.p50.toFixed(2)} ms, p95 ${p.p95.toFixed(2)} ms`);
    console.log(`baseline: ${percentiles(counts.baseline).p50} statement/request, p50 ${b.p50.toFixed(2)} ms, p95 ${b.p95.toFixed(2)} ms`);
    console.log(`server CPU per request: project ${cpuMs.project.toFixed(2)} ms, baseline ${cpuMs.baseline.toFixed(2)} ms (${(cpuMs.project / cpuMs.baseline).toFixed(2)}x)`);
    console.log(`ratio project/baseline: p50 latency ${(p.p50 / b.p50).toFixed(2)}x, p95 ${(p.p95 / b.p95).toFixed(2)}x; same answer: ${same ? 'yes' : 'NO'}`);
    console.log('statements of one project request:');
    for (const text of sample) console.log(`  - ${text.replace(/\s+/g, ' ').slice(0, 220)}${text.length > 220 ? '…' : ''}`);

    if (background) console.log(`(${background} statement(s) of the live-event relay's own poll fell inside the measured requests; not counted)`);
    if (extra.length) {
      console.log(`statements of a project request above the median (${extra.length}):`);
      for (const text of extra) console.log(`  - ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
    reportResult({
      target: `GraphQL bookings(first: ${PAGE}) with vehicle, customer, payment: SQL statements`,
      project: `${pc.p50} statements`,
      baseline: `${percentiles(counts.baseline).p50} statement`,
      ratio: `${pc.p50}`,
      goal: `<= ${GOAL_STATEMENTS} statements`,
      meets: same && maxCount <= GOAL_STATEMENTS,
    });
    reportResult({
      target: `GraphQL bookings(first: ${PAGE}) with vehicle, customer, payment: p50 latency`,
      project: `${p.p50.toFixed(2)} ms`,
      baseline: `${b.p50.toFixed(2)} ms`,
      ratio: `${(p.p50 / b.p50).toFixed(2)}x`,
      goal: `<= ${GOAL_P50_RATIO}x baseline`,
      meets: same && p.p50 <= GOAL_P50_RATIO * b.p50,
    });
  } finally {
    killChildren();
    await projectProxy.close();
    await baselineProxy.close();
    await database.drop();
    clearTimeout(watchdog);
  }
}

runBench(main);
