/** All configuration is environment variables (listed in README.md). */
export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  rateLimitLive: number;
  rateLimitTest: number;
  holdMinutes: number;
  quoteTtlMinutes: number;
  /** How often expired payment holds are swept (ms). */
  holdSweepMs: number;
  bodyLimitBytes: number;
}

function int(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got '${raw}'`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return {
    port: int('PORT', 3000, env),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || './data',
    redisUrl: env.REDIS_URL || undefined,
    rateLimitLive: int('RATE_LIMIT_LIVE', 100, env),
    rateLimitTest: int('RATE_LIMIT_TEST', 25, env),
    holdMinutes: int('BOOKING_HOLD_MINUTES', 30, env),
    quoteTtlMinutes: int('QUOTE_TTL_MINUTES', 30, env),
    holdSweepMs: int('HOLD_SWEEP_MS', 10_000, env),
    bodyLimitBytes: 1024 * 1024,
  };
}
