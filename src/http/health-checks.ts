import type { PrismaClient } from '../generated/prisma/client.ts';
import { pendingMigrations } from '../db/migration-status.ts';
import type { HealthChecks } from './edge/steps/health.ts';
import { redisStatus } from './rate-limit.ts';

/**
 * What GET /health/ready checks in a process: its database answers (within 2 s) with every
 * migration applied, and its Redis clients, when it has any (`redisUrl`), are connected.
 */
export function healthChecks(prisma: PrismaClient, engine: string, redisUrl: string | undefined): HealthChecks {
  return {
    async database() {
      try {
        await Promise.race([prisma.$queryRaw`SELECT 1`, new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 2 s')), 2_000).unref())]);
        return { status: 'ok', engine };
      } catch (err) {
        return { status: 'unavailable', engine, error: (err as Error).message.split('\n')[0] };
      }
    },
    async migrations() {
      const pending = await pendingMigrations(prisma);
      return { status: pending.length ? 'unavailable' : 'ok', pending };
    },
    redis: () => ({ status: redisUrl ? redisStatus(redisUrl) : 'not_configured' }),
  };
}
