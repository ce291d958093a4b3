// Vehicle read bench: GET /v1/vehicles/:id through the project server against a bare
// node:http + pg baseline doing the same work: the same key check (SHA-256 of the key, the
// ApiKey row, cached as the project caches principals), the same scoped SELECT of the vehicle,
// snake_case JSON with a request id.
//
// Each server runs in its own child process; autocannon drives it from this process over
// loopback, one server at a time. On these shared 2-core machines read the ratio, not the
// absolute figures, and the CPU per request beside them, which varies least.
//
// Env: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (10),
//      BENCH_ROUNDS (1; rounds alternate the order), BENCH_CPU_PROF (a directory: the
//      children run with --cpu-prof and write their profiles to <dir>/project, <dir>/baseline),
//      TEST_POSTGRES_URL (server to create the throwaway database on), DATABASE_POOL_SIZE,
//      BENCH_PIPELINE (1: the project is also measured with every request through yoga's
//      pipeline instead of the Node server's own path, both running the same edge steps),
//      BENCH_COMPARE_DIR (another checkout of the project, node_modules installed, e.g. the
//      commit before a change: its server is measured too, as a third side alternated with
//      the other two, and compared with the same baseline).
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { createTestPostgresDatabase } from '../test/support/postgres.ts';
import { envInt } from './bench-env.ts';
import { compareLoad, runBench, watchdog } from './harness.ts';
import { reportResult } from './result.ts';

const SECONDS = envInt('BENCH_SECONDS', 10);
const WARMUP = envInt('BENCH_WARMUP_SECONDS', 2);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const ROUNDS = envInt('BENCH_ROUNDS', 1);
const SCRIPTS = { project: 'serve-app.ts', baseline: 'serve-bare.ts', compare: 'serve-app.ts' } as const;
const COMPARE = process.env.BENCH_COMPARE_DIR ? path.resolve(process.env.BENCH_COMPARE_DIR) : undefined;
type Side = keyof typeof SCRIPTS;

runBench(async () => {
  const database = await createTestPostgresDatabase();
  const disarm = watchdog('bench', (ROUNDS * (COMPARE ? 3 : 2) * (SECONDS + WARMUP + 30) + 120) * 1000, () => database.drop());
  try {
    // Seed: migrations (openDatabase applies them), a business with its keys, one vehicle.
    const db = await openDatabase({ databaseUrl: database.url });
    let key: string;
    let vehicleId: string;
    try {
      const business = await createBusiness(db.prisma, { name: 'Bench Rentals' });
      key = business.test_secret_key;
      const vehicle = await db.prisma.vehicle.create({
        data: {
          id: newId('vehicle'),
          businessId: business.business_id,
          livemode: false,
          name: 'Bench Sedan',
          make: 'Toyota',
          model: 'Camry',
          year: 2022,
          currency: 'usd',
          dailyRateCents: 8900,
          depositCents: 25000,
          includedMiles: 200,
          extraMileFeeCents: 35,
          unlimitedMilesDailyCents: 2500,
          location: { city: 'Austin', region: 'TX', country: 'US' },
          deliveryOptions: [{ kind: 'airport', fee_cents: 3000 }],
          photos: [{ slot: 'front', url: 'https://example.com/front.jpg' }],
          features: ['bluetooth', 'backup_camera'],
          metadata: { fleet: 'bench' },
        },
      });
      vehicleId = vehicle.id;
    } finally {
      await db.close();
    }

    const headers = { authorization: `Bearer ${key}` };
    const shapes: Partial<Record<keyof typeof SCRIPTS, string[]>> = {};
    const runOf = (side: Side) => ({
      label: side,
      script: SCRIPTS[side],
      root: side === 'compare' ? COMPARE : undefined,
      databaseUrl: database.url,
      seconds: SECONDS,
      warmupSeconds: WARMUP,
      connections: CONNECTIONS,
      cpuProfDir: process.env.BENCH_CPU_PROF || undefined,
      // Rate limits raised out of the way: they are not what is measured.
      env: { RATE_LIMIT_TEST: '1000000000', RATE_LIMIT_LIVE: '1000000000' },
      async probe(baseUrl: string) {
        // It must answer 200 with the vehicle before it is timed.
        const res = await fetch(`${baseUrl}/v1/vehicles/${vehicleId}`, { headers });
        const body = (await res.json()) as Record<string, unknown>;
        if (res.status !== 200 || body.id !== vehicleId || body.daily_rate_cents !== 8900) throw new Error(`${side} answered ${res.status} ${JSON.stringify(body)} instead of the vehicle`);
        shapes[side] = Object.keys(body);
      },
      load: (baseUrl: string) => ({ url: `${baseUrl}/v1/vehicles/${vehicleId}`, headers }),
    });
    const { project: p, baseline: b } = await compareLoad<Side>(
      `bench: GET /v1/vehicles/:id, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per run, ${ROUNDS} round(s), pool ${process.env.DATABASE_POOL_SIZE ?? 20}${COMPARE ? `; compare: ${COMPARE}` : ''}`,
      ROUNDS,
      runOf,
      COMPARE ? ['baseline', 'project', 'compare'] : ['baseline', 'project'],
    );
    const extra = (shapes.project ?? []).filter((k) => !(shapes.baseline ?? []).includes(k));
    const missing = (shapes.baseline ?? []).filter((k) => !(shapes.project ?? []).includes(k));
    if (extra.length || missing.length) console.log(`note: response keys differ (project only: ${extra.join(', ') || '-'}; baseline only: ${missing.join(', ') || '-'})`);

    if (process.env.BENCH_PIPELINE === '1') {
      // The same project, every request through App.handle: what the Node server's own path saves.
      const { project: viaPipeline, baseline: again } = await compareLoad<'project' | 'baseline'>(
        `bench: the same, the project through yoga's pipeline (App.handle)`,
        ROUNDS,
        (side) => ({ ...runOf(side), env: { ...runOf(side).env, ...(side === 'project' ? { BENCH_VIA_PIPELINE: '1' } : {}) } }),
      );
      console.log(`Node path vs pipeline: ${(p.rps / b.rps).toFixed(2)} vs ${(viaPipeline.rps / again.rps).toFixed(2)} of the baseline's throughput; ${p.cpuUsPerRequest.toFixed(0)} vs ${viaPipeline.cpuUsPerRequest.toFixed(0)} µs CPU/request`);
    }

    const throughput = p.rps / b.rps;
    const p99 = p.p99 / b.p99;
    reportResult({ target: 'GET /v1/vehicles/{id}: throughput', project: `${p.rps.toFixed(0)} req/s`, baseline: `${b.rps.toFixed(0)} req/s`, ratio: throughput.toFixed(2), goal: '>= 0.6 of baseline', meets: throughput >= 0.6 });
    reportResult({ target: 'GET /v1/vehicles/{id}: p99 latency', project: `${p.p99.toFixed(1)} ms`, baseline: `${b.p99.toFixed(1)} ms`, ratio: `${p99.toFixed(2)}x`, goal: '<= 2x baseline', meets: p99 <= 2 });
  } finally {
    disarm();
    await database.drop();
  }
});
