// The chaos test's faults: a schedule drawn from the seed before the run (so a seed replays
// the same faults at the same moments), then carried out while the workload runs.
// - kill_api: SIGKILL to an API process, started again on its port after `downMs`;
// - kill_worker: SIGKILL to the webhook worker, started again after `downMs`;
// - kill_redis: SIGKILL to Redis, started again (empty) after `downMs`;
// - restart_postgres: `pg_ctl restart -m immediate` (every backend dies, the server recovers
//   from its WAL); the API processes are not restarted, and each must serve again by itself.
import type { PrivatePostgres, ServiceProcess, TestRedis } from './infra.ts';
import type { Rng } from './rng.ts';

export type FaultKind = 'kill_api' | 'kill_worker' | 'kill_redis' | 'restart_postgres';

export interface PlannedFault {
  /** Milliseconds after the workload began. */
  at: number;
  kind: FaultKind;
  /** The API process (its index) for kill_api. */
  target?: number;
  /** How long the killed process stays down before it is started again. */
  downMs: number;
}

export interface FaultPlanOptions {
  durationMs: number;
  apis: number;
  /** Mean gap between API kills, and between worker kills. */
  apiKillEveryMs: number;
  workerKillEveryMs: number;
  redisKills: number;
  postgresRestarts: number;
}

/** After a PostgreSQL restart, the API processes are left alone while their pools recover. */
const POSTGRES_QUIET_MS = 12_000;

export function planFaults(rng: Rng, o: FaultPlanOptions): PlannedFault[] {
  const plan: PlannedFault[] = [];
  // Faults start after a few seconds of calm, and stop before the end so the last restarts finish in the workload.
  const first = Math.min(3_000, o.durationMs * 0.1);
  const last = o.durationMs - Math.min(4_000, o.durationMs * 0.1);
  const spread = (count: number) => Array.from({ length: count }, (_, i) => first + ((i + rng.between(0.2, 0.8)) / count) * (last - first));
  const postgres = spread(o.postgresRestarts).map((at) => ({ at, kind: 'restart_postgres' as const, downMs: 0 }));
  plan.push(...postgres);
  plan.push(...spread(o.redisKills).map((at) => ({ at, kind: 'kill_redis' as const, downMs: rng.int(1_000, 4_000) })));
  for (let at = first + rng.between(0, o.workerKillEveryMs); at < last; at += rng.between(0.5, 1.5) * o.workerKillEveryMs) {
    plan.push({ at, kind: 'kill_worker', downMs: rng.int(200, 2_000) });
  }
  for (let at = first + rng.between(0, o.apiKillEveryMs); at < last; at += rng.between(0.5, 1.5) * o.apiKillEveryMs) {
    const quiet = postgres.some((p) => at > p.at - 1_000 && at < p.at + POSTGRES_QUIET_MS);
    const target = rng.int(0, o.apis - 1);
    const downMs = rng.int(200, 2_000);
    if (!quiet) plan.push({ at, kind: 'kill_api', target, downMs });
  }
  return plan.sort((a, b) => a.at - b.at);
}

export interface FaultRecord extends PlannedFault {
  /** When it was carried out (ms after the workload began). */
  startedAt: number;
  process?: string;
  /** kill_api / kill_worker: from the restart's spawn to serving again. */
  readyMs?: number;
  /** restart_postgres: how long pg_ctl took, and per API process how long until it served a request again. */
  postgresDownMs?: number;
  /** restart_postgres: from the restart's start until the server accepted connections again (epoch ms). */
  down?: { from: number; to: number };
  poolRecoveryMs?: Record<string, number | 'restarted' | 'never'>;
  skipped?: string;
  error?: string;
}

export interface FaultTargets {
  apis: ServiceProcess[];
  worker: ServiceProcess;
  redis: TestRedis;
  postgres: PrivatePostgres;
  /** A request that needs the database, sent to one API process: true when it answered 200. */
  probe(api: ServiceProcess): Promise<boolean>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the faults in progress hold: a PostgreSQL restart waits for the process restarts in
 * flight (a process starting while the database restarts exits at once, as documented), and
 * process kills wait while PostgreSQL restarts and its pools recover (so that the recovery is
 * the pools', not a new process's).
 */
interface FaultState {
  restartsInFlight: number;
  postgresRestarting: boolean;
  redisDown: boolean;
}

/** Carry out the plan; resolves when every fault is over and every process serves again. */
export async function runFaults(plan: PlannedFault[], targets: FaultTargets, began: number): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  const running: Promise<void>[] = [];
  const state: FaultState = { restartsInFlight: 0, postgresRestarting: false, redisDown: false };
  for (const fault of plan) {
    const wait = began + fault.at - Date.now();
    if (wait > 0) await sleep(wait);
    const record: FaultRecord = { ...fault, startedAt: Date.now() - began };
    records.push(record);
    running.push(carryOut(record, targets, state).catch((err) => void (record.error = (err as Error).message)));
  }
  await Promise.all(running);
  return records;
}

async function killProcess(record: FaultRecord, process: ServiceProcess, state: FaultState): Promise<void> {
  record.process = process.name;
  if (state.postgresRestarting) return void (record.skipped = 'PostgreSQL restarting');
  if (!process.alive) return void (record.skipped = 'already down');
  state.restartsInFlight++;
  try {
    record.readyMs = (await process.crashAndRestart(record.downMs)).readyMs;
  } finally {
    state.restartsInFlight--;
  }
}

async function carryOut(record: FaultRecord, t: FaultTargets, state: FaultState): Promise<void> {
  switch (record.kind) {
    case 'kill_api':
      return killProcess(record, t.apis[record.target!], state);
    case 'kill_worker':
      return killProcess(record, t.worker, state);
    case 'kill_redis': {
      record.process = 'redis';
      if (state.redisDown) return void (record.skipped = 'already down');
      state.redisDown = true;
      try {
        await t.redis.stop('SIGKILL');
        await sleep(record.downMs);
        await t.redis.restart();
      } finally {
        state.redisDown = false;
      }
      return;
    }
    case 'restart_postgres': {
      record.process = 'postgres';
      if (state.postgresRestarting) return void (record.skipped = 'already restarting');
      state.postgresRestarting = true;
      try {
        for (const waitUntil = Date.now() + 30_000; state.restartsInFlight > 0 && Date.now() < waitUntil; ) await sleep(100);
        const from = Date.now();
        const { downMs } = await t.postgres.restartImmediate();
        record.down = { from, to: Date.now() };
        record.postgresDownMs = downMs;
        const back = Date.now();
        // Each API process, not restarted, must serve a database read again by itself.
        const recovered = await Promise.all(t.apis.map(async (api) => {
          const generation = api.generation;
          while (Date.now() - back < 30_000) {
            if (api.generation !== generation) return [api.name, 'restarted'] as const; // restarted meanwhile: not a pool's recovery
            if (await t.probe(api)) return [api.name, Date.now() - back] as const;
            await sleep(100);
          }
          return [api.name, 'never'] as const;
        }));
        record.poolRecoveryMs = Object.fromEntries(recovered);
      } finally {
        state.postgresRestarting = false;
      }
      return;
    }
  }
}
