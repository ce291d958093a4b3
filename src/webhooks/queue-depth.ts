import type { PrismaClient } from '../generated/prisma/client.ts';
import type { QueueDepth } from '../metrics.ts';

/**
 * Webhook messages waiting, across every business (the platform's view, for the operator's
 * metrics: counts only), per environment: pending ones (not delivered, not given up; a claimed
 * message awaiting its answer is pending until recorded) and, of those, the ones due now.
 */
export async function webhookQueueDepth(prisma: PrismaClient): Promise<QueueDepth> {
  const rows = await prisma.$queryRaw<{ livemode: boolean; pending: number; due: number }[]>`
    SELECT livemode, count(*)::int AS pending, (count(*) FILTER (WHERE "nextAttemptAt" <= now()))::int AS due
      FROM "WebhookMessage" WHERE state = 'pending' GROUP BY livemode`;
  return rows.map((r) => ({ livemode: r.livemode, pending: Number(r.pending), due: Number(r.due) }));
}
