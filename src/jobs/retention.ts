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

const EPOCH = new Date(0);

/**
 * Where each kind's next batch goes on from, kept by a process from one pass to the next
 * (newRetentionCursor). A batch that starts where the last one stopped never walks over the
 * index entries of the rows earlier batches deleted, which stay in the index until VACUUM
 * removes them: with a year's backlog, hundreds of thousands of them, which every batch
 * started from the oldest read again. Once a kind has caught up (a batch came back short),
 * its next pass starts from the oldest again, so a row passed over (another process held it,
 * then rolled back) is not left behind.
 */
export interface RetentionCursor {
  webhookMessages: { delivered: Date; failed: Date };
  events: { after: Date; afterId: string };
  auditRecords: Date;
}

export function newRetentionCursor(): RetentionCursor {
  return { webhookMessages: { delivered: EPOCH, failed: EPOCH }, events: { after: EPOCH, afterId: '' }, auditRecords: EPOCH };
}

/**
 * One retention pass over every business: finished webhook messages with their attempts, then
 * the events nothing refers to any more, then audit records, each past its period. Each batch
 * is one statement deleting at most `batchSize` rows it locked with SKIP LOCKED, so a pass never
 * holds a lock for longer than a batch takes, never waits for a row another process holds, and
 * passes of any number of processes side by side share the work without doing any of it twice.
 * Events not yet published by the relay and events with a delivery still pending are never
 * deleted. Each kind goes on from where `cursor` says (and moves it). Spent idempotency keys
 * have their own sweep (src/http/idempotency.ts).
 */
export async function runRetentionPass(sql: PlatformSql, policy: RetentionPolicy, now: Date, cursor: RetentionCursor = newRetentionCursor()): Promise<RetentionCounts> {
  const counts: RetentionCounts = { webhookMessages: 0, webhookDeliveries: 0, events: 0, auditRecords: 0, batches: 0 };
  const limit = policy.batchSize;
  /** Runs `batch` until it comes back short of a full batch (then `caughtUp`), or `maxBatches` times. */
  const drain = async (batch: () => Promise<number>, caughtUp: () => void) => {
    for (let i = 0; i < policy.maxBatches; i++) {
      counts.batches++;
      if ((await batch()) < limit) return caughtUp();
    }
  };

  if (policy.webhookDeliveryDays > 0) {
    const before = new Date(now.getTime() - policy.webhookDeliveryDays * DAY_MS);
    for (const state of ['delivered', 'failed'] as const) {
      await drain(
        async () => {
          const [row] = await sql.run(deleteExpiredWebhookMessages, { before, limit, state, from: cursor.webhookMessages[state] });
          counts.webhookMessages += row.messages;
          counts.webhookDeliveries += row.attempts;
          if (row.last) cursor.webhookMessages[state] = row.last;
          return row.messages;
        },
        () => (cursor.webhookMessages[state] = EPOCH),
      );
    }
  }
  const eventsBefore = eventCutoff(policy, now);
  if (eventsBefore) {
    // Each batch reads up to `limit` events and goes on from where the one before stopped.
    await drain(
      async () => {
        const [row] = await sql.run(deleteExpiredEvents, { before: eventsBefore, limit, ...cursor.events });
        counts.events += row.deleted;
        if (row.lastPublishedAt && row.lastId) cursor.events = { after: row.lastPublishedAt, afterId: row.lastId };
        return row.read;
      },
      () => (cursor.events = { after: EPOCH, afterId: '' }),
    );
  }
  if (policy.auditDays > 0) {
    const before = new Date(now.getTime() - policy.auditDays * DAY_MS);
    await drain(
      async () => {
        const [row] = await sql.run(deleteExpiredAuditRecords, { before, limit, from: cursor.auditRecords });
        counts.auditRecords += row.deleted;
        if (row.last) cursor.auditRecords = row.last;
        return row.deleted;
      },
      () => (cursor.auditRecords = EPOCH),
    );
  }
  return counts;
}

/** The periodic pass of startMaintenance: runs one (going on from `cursor`) and logs what it deleted. */
export async function sweepRetention(prisma: PrismaClient, policy: RetentionPolicy, now: Date, cursor: RetentionCursor): Promise<RetentionCounts> {
  const started = performance.now();
  const counts = await runRetentionPass(platformSql({ prisma }), policy, now, cursor);
  if (counts.webhookMessages + counts.events + counts.auditRecords > 0) {
    log.info({ job: 'retention', ...counts, duration_ms: Math.round(performance.now() - started) }, 'retention pass deleted expired records');
  }
  return counts;
}
