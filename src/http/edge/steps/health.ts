import { jsonAnswer, type EdgeAnswer, type EdgeStep } from '../runner.ts';

export type CheckStatus = 'ok' | 'unavailable' | 'not_configured';

export interface HealthChecks {
  /** The database answers a query (bounded in time). */
  database(): Promise<{ status: CheckStatus; engine: string; error?: string }>;
  /** Every migration of the release is applied. */
  migrations(): Promise<{ status: CheckStatus; pending: string[] }>;
  /** Redis, when configured; without it the service runs on in-process limits and events. */
  redis(): { status: CheckStatus };
}

export const HEALTH_PATHS = new Set(['/health', '/health/live', '/health/ready']);

/**
 * Health without a key: GET /health/live (the process answers) and GET /health/ready (the
 * database answers, the migrations are applied; Redis is reported, and its absence only
 * degrades: rate limits and live events fall back to this process). /health is liveness.
 */
export function healthStep(checks: HealthChecks): EdgeStep {
  return {
    name: 'health',
    run(ctx) {
      const { method, pathname } = ctx.request;
      if (method !== 'GET' || !HEALTH_PATHS.has(pathname)) return;
      ctx.template = pathname;
      if (pathname !== '/health/ready') {
        ctx.answer = jsonAnswer(200, { object: 'health', status: 'ok' });
        return;
      }
      return ready(checks).then((answer) => void (ctx.answer = answer));
    },
  };
}

/** Readiness: 200 while the database answers with every migration applied, else 503. */
async function ready(checks: HealthChecks): Promise<EdgeAnswer> {
  const database = await checks.database();
  const unknown = { status: 'unavailable' as const, pending: [] };
  const migrations = database.status === 'ok' ? await checks.migrations().catch(() => unknown) : unknown;
  const redis = checks.redis();
  const isReady = database.status === 'ok' && migrations.status === 'ok';
  const status = !isReady ? 'unavailable' : redis.status === 'unavailable' ? 'degraded' : 'ok';
  return jsonAnswer(isReady ? 200 : 503, { object: 'health', status, checks: { database, migrations, redis } });
}
