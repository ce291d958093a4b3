import type { PrismaClient } from '../generated/prisma/client.ts';
import { platformSql, type PlatformSql } from '../db/sql/named-sql.ts';
import { deleteExpiredAuditRecords, deleteExpiredEvents, deleteExpiredWebhookMessages } from '../db/sql/generated/platform.ts';
import { log } from '../log.ts';
import type { RetentionPolicy } from './retention-policy.ts';

/** What one pass deleted, by kind. */
export interface RetentionCounts {
  webhookMessages: number;
  webhookDeliveries: number;
  events: number;
  auditRecords: number;
  /** Statements run (each one batch, each its own short transaction). */
  batches: number;
}

const DAY_MS = 86_400_000;

/**
 * The cut-off before which events go. An event stays while a webhook message refers to it, so
 * events are in effect kept as long as the longer of the two periods; asking for the longer
 * one keeps the events still referred to out of every batch's way. Null: kept forever.
 */
function eventCutoff(policy: RetentionPolicy, now: Date): Date | null {
  if (policy.eventDays === 0 || policy.webhookDeliveryDays === 0) return null;
  return new Date(now.getTime() - Math.max(policy.eventDays, policy.webhookDeliveryDays) * DAY_MS);
}

/**
 * One retention pass over every business: finished webhook messages with their attempts, then
 * the events nothing refers to any more, then audit records, each past its period. Each batch
 * is one statement deleting at most `batchSize` rows it locked with SKIP LOCKED, so a pass never
 * holds a lock for longer than a batch takes, never waits for a row another process holds, and
 * passes of any number of processes side by side share the work without doing any of it twice.
 * Events not yet published by the relay and events with a delivery still pending are never
 * deleted. Spent idempotency keys have their own sweep (src/http/idempotency.ts).
 */
export async function runRetentionPass(sql: PlatformSql, policy: RetentionPolicy, now: Date): Promise<RetentionCounts> {
  const counts: RetentionCounts = { webhookMessages: 0, webhookDeliveries: 0, events: 0, auditRecords: 0, batches: 0 };
  const limit = policy.batchSize;
  /** Runs `batch` until it comes back short of a full batch, or `maxBatches` times. */
  const drain = async (batch: () => Promise<number>) => {
    for (let i = 0; i < policy.maxBatches; i++) {
      counts.batches++;
      if ((await batch()) < limit) return;
    }
  };

  if (policy.webhookDeliveryDays > 0) {
    const before = new Date(now.getTime() - policy.webhookDeliveryDays * DAY_MS);
    for (const state of ['delivered', 'failed'] as const) {
      await drain(async () => {
        const [row] = await sql.run(deleteExpiredWebhookMessages, { before, limit, state });
        counts.webhookMessages += row.messages;
        counts.webhookDeliveries += row.attempts;
        return row.messages;
      });
    }
  }
  const eventsBefore = eventCutoff(policy, now);
  if (eventsBefore) {
    // Each batch reads up to `limit` events and goes on from where the one before stopped.
    let after = { after: new Date(0), afterId: '' };
    await drain(async () => {
      const [row] = await sql.run(deleteExpiredEvents, { before: eventsBefore, limit, ...after });
      counts.events += row.deleted;
      if (row.lastPublishedAt && row.lastId) after = { after: row.lastPublishedAt, afterId: row.lastId };
      return row.read;
    });
  }
  if (policy.auditDays > 0) {
    const before = new Date(now.getTime() - policy.auditDays * DAY_MS);
    await drain(async () => {
      const [row] = await sql.run(deleteExpiredAuditRecords, { before, limit });
      counts.auditRecords += row.deleted;
      return row.deleted;
    });
  }
  return counts;
}

/** The periodic pass of startMaintenance: runs one and logs what it deleted. */
export async function sweepRetention(prisma: PrismaClient, policy: RetentionPolicy, now: Date): Promise<RetentionCounts> {
  const started = performance.now();
  const counts = await runRetentionPass(platformSql({ prisma }), policy, now);
  if (counts.webhookMessages + counts.events + counts.auditRecords > 0) {
    log.info({ job: 'retention', ...counts, duration_ms: Math.round(performance.now() - started) }, 'retention pass deleted expired records');
  }
  return counts;
}
