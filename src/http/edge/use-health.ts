import { jsonResponse } from '../error-envelope.ts';
import type { EdgePlugin } from './context.ts';

export type CheckStatus = 'ok' | 'unavailable' | 'not_configured';

export interface HealthChecks {
  /** The database answers a query (bounded in time). */
  database(): Promise<{ status: CheckStatus; engine: string; error?: string }>;
  /** Every migration of the release is applied. */
  migrations(): Promise<{ status: CheckStatus; pending: string[] }>;
  /** Redis, when configured; without it the service runs on in-process limits and events. */
  redis(): { status: CheckStatus };
}

const HEALTH_PATHS = new Set(['/health', '/health/live', '/health/ready']);
export const answersHealth = (method: string, pathname: string) => method === 'GET' && HEALTH_PATHS.has(pathname);

/**
 * Health without a key: GET /health/live (the process answers) and GET /health/ready (the
 * database answers, the migrations are applied; Redis is reported, and its absence only
 * degrades: rate limits and live events fall back to this process). /health is liveness.
 */
export function useHealth(checks: HealthChecks): EdgePlugin {
  return {
    onRequest({ url, request, endResponse }) {
      if (!answersHealth(request.method, url.pathname)) return;
      if (url.pathname === '/health' || url.pathname === '/health/live') return endResponse(jsonResponse(200, { object: 'health', status: 'ok' }));
      if (url.pathname === '/health/ready') return ready(checks).then(endResponse);
    },
  };
}

/** Readiness: 200 while the database answers with every migration applied, else 503. */
async function ready(checks: HealthChecks): Promise<Response> {
  const database = await checks.database();
  const unknown = { status: 'unavailable' as const, pending: [] };
  const migrations = database.status === 'ok' ? await checks.migrations().catch(() => unknown) : unknown;
  const redis = checks.redis();
  const isReady = database.status === 'ok' && migrations.status === 'ok';
  const status = !isReady ? 'unavailable' : redis.status === 'unavailable' ? 'degraded' : 'ok';
  return jsonResponse(isReady ? 200 : 503, { object: 'health', status, checks: { database, migrations, redis } });
}
