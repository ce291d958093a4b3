import { describe, expect, it } from 'vitest';
import { defaultOptions, runChaos } from './chaos/run.ts';

/*
 * The chaos test, shortened (the long run is `npm run chaos`; docs/chaos-testing.md): 30
 * seconds of keyed bookings, payments, refunds, charges and captures against three API
 * processes and the webhook worker on a private PostgreSQL and Redis, while API processes and
 * the worker are killed with SIGKILL, Redis is killed and PostgreSQL restarts in immediate
 * mode. Every invariant must hold afterwards. The seed is fixed (CHAOS_SEED changes it), so
 * the faults come at the same moments on every run; what they hit still depends on timing.
 */
describe('chaos: crash consistency under load (PostgreSQL, Redis, several processes)', () => {
  it('keeps every invariant while processes, Redis and PostgreSQL die under a mixed workload', async () => {
    const options = defaultOptions({
      seed: Number(process.env.CHAOS_SEED ?? 20261127),
      durationMs: 30_000,
      lanes: 6,
      apiKillEveryMs: 3_000,
      workerKillEveryMs: 8_000,
      redisKills: 1,
      postgresRestarts: 1,
      opDeadlineMs: 20_000,
      settleMs: 45_000,
    });
    const report = await runChaos(options);
    expect(report.failed, report.summary).toEqual([]);
  }, 240_000);
});
