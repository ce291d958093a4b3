// Read by the configuration (src/config.ts) without loading the database's modules.

/**
 * How long the append-only records are kept, and how their deletion runs (docs/retention.md).
 * A period of 0 days keeps them forever.
 */
export interface RetentionPolicy {
  /** EVENT_RETENTION_DAYS: events (GET /v1/events) are kept this long after their creation. */
  eventDays: number;
  /** WEBHOOK_DELIVERY_RETENTION_DAYS: a webhook message and its delivery attempts, this long after it was delivered or given up. */
  webhookDeliveryDays: number;
  /** AUDIT_RETENTION_DAYS: audit records, this long after the request. */
  auditDays: number;
  /** RETENTION_BATCH_SIZE: rows one statement deletes at most. */
  batchSize: number;
  /** RETENTION_MAX_BATCHES: batches of each kind one pass runs at most; the rest waits for the next pass. */
  maxBatches: number;
  /** RETENTION_SWEEP_MS: how often a process runs a pass (0: never). */
  sweepMs: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = {
  eventDays: 30,
  webhookDeliveryDays: 30,
  auditDays: 365,
  batchSize: 1_000,
  maxBatches: 100,
  sweepMs: 60_000,
};
