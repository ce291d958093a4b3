// Booking creation bench: POST /v1/bookings through the project server against a bare
// node:http + pg baseline running the same statements in the same transaction
// (serve-bare-booking.ts says which), on PostgreSQL with its exclusion constraint, and two
// webhook endpoints so that each booking writes its event and two outbox rows.
//
// Every request books a period no other request books (vehicle and week from a counter), so
// every answer must be 201; each side books its own half of the fleet.
//
// Before the load, each side answers BENCH_STATEMENT_REQUESTS (100) bookings one at a time,
// after as many to warm up, through a proxy that counts the SQL statements and transactions
// they cost, and the server's CPU time for them (figures that a loaded machine blurs far less
// than throughput); BENCH_SHOW_SQL=1 prints the statements of one booking.
//
// Env: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (10), BENCH_ROUNDS (1),
//      BENCH_VEHICLES (400), BENCH_CPU_PROF (a directory for the children's CPU profiles),
//      TEST_POSTGRES_URL, DATABASE_POOL_SIZE.
import { openDatabase } from '../src/db/database.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { createTestPostgresDatabase } from '../test/support/postgres.ts';
import { envInt } from './bench-env.ts';
import { compareLoad, cpuSeconds, runBench, startServer, watchdog } from './harness.ts';
import { startStatementCounter, transactionsOf } from './pg-statement-counter.ts';
import { reportResult } from './result.ts';

const SECONDS = envInt('BENCH_SECONDS', 10);
const WARMUP = envInt('BENCH_WARMUP_SECONDS', 2);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const ROUNDS = envInt('BENCH_ROUNDS', 1);
const VEHICLES = envInt('BENCH_VEHICLES', 400);
const STATEMENT_REQUESTS = envInt('BENCH_STATEMENT_REQUESTS', 100);
const SCRIPTS = { project: 'serve-app.ts', baseline: 'serve-bare-booking.ts' } as const;
const DAY = 86_400_000;

runBench(async () => {
  const database = await createTestPostgresDatabase();
  const disarm = watchdog('bench', (ROUNDS * 2 * (SECONDS + WARMUP + 30) + 180) * 1000, () => database.drop());
  try {
    const db = await openDatabase({ databaseUrl: database.url });
    let key: string;
    let vehicleIds: string[];
    let customerId: string;
    try {
      const business = await createBusiness(db.prisma, { name: 'Bench Rentals' });
      key = business.test_secret_key;
      const tenant = { businessId: business.business_id, livemode: false };
      vehicleIds = Array.from({ length: VEHICLES }, () => newId('vehicle'));
      await db.prisma.vehicle.createMany({
        data: vehicleIds.map((id, i) => ({
          id, ...tenant, name: `Bench car ${i}`, make: 'Toyota', model: 'Camry', year: 2022, currency: 'usd', dailyRateCents: 8900, depositCents: 25000,
          includedMiles: 200, extraMileFeeCents: 35, unlimitedMilesDailyCents: 2500, location: { city: 'Austin' }, deliveryOptions: [], photos: [], features: [], metadata: {},
        })),
      });
      customerId = (await db.prisma.customer.create({ data: { id: newId('customer'), ...tenant, name: 'Bench Customer', email: 'bench@example.com' } })).id;
      for (let i = 0; i < 2; i++) {
        await db.prisma.webhookEndpoint.create({ data: { id: newId('webhookEndpoint'), ...tenant, url: `https://example.com/hooks/${i}`, enabledEvents: ['*'], secret: `whsec_bench${i}` } });
      }
    } finally {
      await db.close();
    }

    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const half = Math.floor(VEHICLES / 2);
    const counters = { project: 0, baseline: 0 };
    const start = Date.now() + 30 * DAY;
    // The n-th booking of a side: its own vehicle of its half of the fleet, a week of its own.
    const bodyOf = (side: 'project' | 'baseline') => {
      const n = counters[side]++;
      const vehicle = vehicleIds[(side === 'project' ? 0 : half) + (n % half)];
      const from = start + Math.floor(n / half) * 7 * DAY;
      return JSON.stringify({ vehicle_id: vehicle, customer_id: customerId, start_at: new Date(from).toISOString(), end_at: new Date(from + 3 * DAY).toISOString() });
    };

    const sides = ['project', 'baseline'] as const;
    const post = async (baseUrl: string, side: 'project' | 'baseline') => {
      const res = await fetch(`${baseUrl}/v1/bookings`, { method: 'POST', headers, body: bodyOf(side) });
      const body = (await res.json()) as Record<string, unknown>;
      // The same booking from both sides: its price, and the day rates it stores.
      if (res.status !== 201 || body.state !== 'pending_payment' || body.total_cents !== 3 * 8900 || (body.day_rates as unknown[] | undefined)?.length !== 3) throw new Error(`${side} answered ${res.status} ${JSON.stringify(body)} instead of the booking`);
    };

    // SQL per booking, one booking at a time (the background work it causes included: the event relay's claim).
    const pgPort = Number(new URL(database.url).port || 5432);
    const perRequest: Record<string, { statements: number; transactions: number; cpuUs: number }> = {};
    for (const side of sides) {
      const proxy = await startStatementCounter({ host: '127.0.0.1', port: pgPort });
      const server = await startServer(side, SCRIPTS[side], Object.assign(new URL(database.url), { port: String(proxy.port) }).toString(), { env: { WEBHOOK_WORKER: 'off' } });
      const baseUrl = `http://127.0.0.1:${server.port}`;
      const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
      try {
        for (let i = 0; i < STATEMENT_REQUESTS; i++) await post(baseUrl, side);
        await settle();
        if (process.env.BENCH_SHOW_SQL) {
          proxy.reset();
          await post(baseUrl, side);
          await settle();
          console.log(`${side}: the statements of one booking`);
          for (const text of proxy.texts()) console.log(`  ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
        }
        proxy.reset();
        const cpuBefore = await cpuSeconds(server.pid);
        for (let i = 0; i < STATEMENT_REQUESTS; i++) await post(baseUrl, side);
        await settle();
        const cpuUs = ((await cpuSeconds(server.pid)) - cpuBefore) * 1e6;
        perRequest[side] = { statements: proxy.count() / STATEMENT_REQUESTS, transactions: transactionsOf(proxy) / STATEMENT_REQUESTS, cpuUs: cpuUs / STATEMENT_REQUESTS };
      } finally {
        await server.stop();
        await proxy.close();
      }
    }
    for (const side of sides) {
      const f = perRequest[side];
      console.log(`${side.padEnd(8)}: ${f.statements.toFixed(2)} SQL statements, ${f.transactions.toFixed(2)} transactions, ${f.cpuUs.toFixed(0)} µs CPU per booking (${STATEMENT_REQUESTS} bookings one at a time)`);
    }

    const { project: p, baseline: b } = await compareLoad(
      `bench: POST /v1/bookings, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per run, ${ROUNDS} round(s), ${VEHICLES} vehicles, 2 webhook endpoints, pool ${process.env.DATABASE_POOL_SIZE ?? 20}`,
      ROUNDS,
      (side) => ({
        label: side,
        script: SCRIPTS[side],
        databaseUrl: database.url,
        seconds: SECONDS,
        warmupSeconds: WARMUP,
        connections: CONNECTIONS,
        cpuProfDir: process.env.BENCH_CPU_PROF || undefined,
        env: { WEBHOOK_WORKER: 'off' },
        probe: (baseUrl) => post(baseUrl, side),
        sent: () => counters[side],
        load: (baseUrl) => ({ url: baseUrl, requests: [{ method: 'POST', path: '/v1/bookings', headers, setupRequest: (req) => ({ ...req, body: bodyOf(side) }) }] }),
      }),
    );
    const ratio = p.rps / b.rps;
    reportResult({ target: 'POST /v1/bookings: throughput', project: `${p.rps.toFixed(0)} req/s`, baseline: `${b.rps.toFixed(0)} req/s`, ratio: ratio.toFixed(2), goal: '>= 0.4 of baseline', meets: ratio >= 0.4 });
  } finally {
    disarm();
    await database.drop();
  }
});
