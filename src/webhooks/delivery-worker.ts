import type { AppConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { claimWebhookMessages } from '../db/sql/generated/platform.ts';
import { platformSql, type PlatformSql } from '../db/sql/named-sql.ts';
import { tenantDbFactory, type TenantDbFactory } from '../db/tenant-db.ts';
import { OUTBOX_CHANNEL, presentEvent, recordEvent } from '../domain/events/event.service.ts';
import { newId } from '../domain/shared/ids.ts';
import { present } from '../domain/shared/presenter.ts';
import { WEBHOOK_DELIVERY_FIELDS } from '../domain/webhooks/webhook.fields.ts';
import { isDelivered, nextRetryDelay } from '../domain/webhooks/retry-schedule.ts';
import { signatureHeaders } from '../domain/webhooks/signing.ts';
import { privateTargetsAllowed, type PrivateTargetPolicy } from '../domain/webhooks/url-policy.ts';
import { log } from '../log.ts';
import type { DeliveryOutcome } from '../metrics.ts';

export interface DeliveryWorkerOptions {
  /** Fallback poll for due retries (NOTIFY wakes the worker for new events). */
  pollMs: number;
  /** How long a claimed message is reserved for its sender before another worker may take it. */
  leaseMs: number;
  /** An answer slower than this counts as failed (the contract: 10 s). */
  timeoutMs: number;
  /** Messages held here at most (claimed, not yet sent); one claim takes up to this many. */
  batchSize: number;
  /** Attempts awaiting their answer at once (each to a different endpoint). */
  concurrency: number;
  /** SANDBOX_RETRY_SCALE: multiplies the retry delays of test-mode deliveries. */
  sandboxRetryScale: number;
  /** WEBHOOK_PRIVATE_URLS: where private targets are reached (elsewhere the guarded dispatcher refuses them). */
  privateUrls: PrivateTargetPolicy;
  /** Told of every attempt once answered (the metrics): delivered, retrying (another attempt follows) or failed (none does). */
  onAttempt?: (outcome: DeliveryOutcome) => void;
}

export const DEFAULT_WORKER_OPTIONS: DeliveryWorkerOptions = { pollMs: 1_000, leaseMs: 60_000, timeoutMs: 10_000, batchSize: 200, concurrency: 64, sandboxRetryScale: 1, privateUrls: 'sandbox' };

/** Worker options from the app configuration (WEBHOOK_* and SANDBOX_RETRY_SCALE variables). */
export function workerOptions(config: AppConfig): Partial<DeliveryWorkerOptions> {
  return { pollMs: config.webhookPollMs, leaseMs: config.webhookLeaseMs, timeoutMs: config.webhookTimeoutMs, sandboxRetryScale: config.sandboxRetryScale, privateUrls: config.webhookPrivateUrls };
}

/**
 * How many messages of one endpoint a worker holds at once (claimed, not yet answered). One
 * endpoint's messages are sent one after another, so the last of them waits for the answers
 * to all before it; bounding them by lease / timeout keeps that wait within the lease even
 * when the endpoint never answers (defaults: 60 s / 10 s -> 5).
 */
export function perEndpointLimit(options: Pick<DeliveryWorkerOptions, 'leaseMs' | 'timeoutMs'>): number {
  return Math.max(1, Math.floor(options.leaseMs / options.timeoutMs) - 1);
}

/** A claimed message with what sending it needs. */
export interface Claimed {
  id: string;
  businessId: string;
  livemode: boolean;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempts: number;
  /** The end of our lease: the claim is ours while `nextAttemptAt` still holds it. */
  leaseUntil: Date;
  /** The event; its business is the message's own, or one connected to the app whose endpoint this is. */
  event: { id: string; businessId: string; type: string; livemode: boolean; createdAt: Date; data: unknown; requestId: string | null; idempotencyKey: string | null; bookingId: string | null };
  endpoint: { url: string; secret: string };
}

/** What this worker already holds, for a claim to leave alone or to count. */
interface Holding {
  /** Messages claimed here and not recorded yet (their lease may run out while an answer is slow). */
  messageIds: string[];
  /** Endpoints with messages held here, and how many. */
  endpointIds: string[];
  counts: number[];
}

/**
 * The worker's recording statement runs as SQL (its claim is a named platform statement): on
 * PostgreSQL directly on the pool Prisma's adapter draws on (as the tenant scope's reads by id
 * do), on the embedded database through Prisma's raw queries. Through the ORM a raw statement
 * costs several times its pg cost, and it runs for every few deliveries.
 */
type Sql = <T>(text: string, values: unknown[]) => Promise<T[]>;

function sqlRunner(db: Database): Sql {
  const pool = db.pool;
  if (pool) return async <T>(text: string, values: unknown[]) => (await pool.query(text, values)).rows as T[];
  return <T>(text: string, values: unknown[]) => db.prisma.$queryRawUnsafe<T[]>(text, ...values);
}

/**
 * Claim up to `limit` due messages in one statement (src/db/sql/platform/claim-webhook-messages.sql):
 * any number of workers run side by side without two taking one message, and a message claimed
 * by a worker that died is due again once the lease runs out. At most `perEndpoint` messages of
 * one endpoint held here (those already held count), looked for among the 4 x `limit` oldest
 * due messages of endpoints with room left; returned in due order.
 */
async function claimDue(platform: PlatformSql, options: DeliveryWorkerOptions, limit: number, holding: Holding, perEndpoint: number, full: string[]): Promise<Claimed[]> {
  const now = new Date();
  const leaseUntil = new Date(now.getTime() + options.leaseMs);
  const rows = await platform.run(claimWebhookMessages, {
    now,
    heldMessageIds: holding.messageIds,
    fullEndpointIds: full,
    lookAhead: limit * 4,
    heldEndpointIds: holding.endpointIds,
    heldCounts: holding.counts,
    perEndpoint,
    limit,
    leaseUntil,
  });
  return rows.map((r) => ({
    id: r.id,
    businessId: r.businessId,
    livemode: r.livemode,
    endpointId: r.endpointId,
    eventId: r.eventId,
    eventType: r.eventType,
    attempts: r.attempts,
    leaseUntil,
    event: { id: r.eventId, businessId: r.eventBusinessId, type: r.type, livemode: r.livemode, createdAt: r.eventCreatedAt, data: r.data, requestId: r.requestId, idempotencyKey: r.idempotencyKey, bookingId: r.bookingId },
    endpoint: { url: r.url, secret: r.secret },
  }));
}

type Outcome = { status: number | null; error: string | null; durationMs: number };

/**
 * The HTTP client of deliveries (undici, a hundred modules), loaded with the first delivery:
 * a process that has none to send, an API process restarting say, starts without it.
 */
let transport: Promise<typeof import('./guarded-dispatcher.ts')> | undefined;

/**
 * POST one event to its endpoint, signed per Standard Webhooks; never throws. Connections
 * are kept alive and reused. Where private targets are not allowed, through the guarded
 * dispatcher: a refused address is a failed attempt like any network error.
 */
async function send(message: Claimed, timeoutMs: number, privateUrls: PrivateTargetPolicy): Promise<Outcome> {
  const body = JSON.stringify(presentEvent(message.event));
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'RentalAPI-Webhooks/1.0',
    // The event id is the message id: stable across retries, so receivers can deduplicate.
    ...signatureHeaders(message.endpoint.secret, message.event.id, Math.floor(Date.now() / 1000), body),
  };
  const { guardedDispatcher, postThrough, unguardedDispatcher } = await (transport ??= import('./guarded-dispatcher.ts'));
  const started = performance.now();
  const dispatcher = privateTargetsAllowed(privateUrls, message.livemode) ? unguardedDispatcher() : guardedDispatcher();
  const res = await postThrough(dispatcher, message.endpoint.url, headers, body, timeoutMs);
  const durationMs = Math.round(performance.now() - started);
  if (res.error === null) return { status: res.status, error: null, durationMs };
  const err = res.error;
  const reason = res.timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${(err.cause as Error)?.message ?? err.message}`;
  return { status: null, error: reason, durationMs };
}

function deliveryRow(message: Claimed, attempt: number, outcome: Outcome, nextRetryAt: Date | null) {
  return {
    id: newId('webhookDelivery'),
    businessId: message.businessId,
    livemode: message.livemode,
    messageId: message.id,
    endpointId: message.endpointId,
    eventId: message.eventId,
    eventType: message.eventType,
    url: message.endpoint.url,
    attempt,
    responseStatus: outcome.status,
    durationMs: outcome.durationMs,
    error: outcome.error,
    nextRetryAt,
  };
}

/** Record one attempt and schedule what follows, in one transaction of the message's tenant. */
async function recordAttempt(tenantDb: TenantDbFactory, message: Claimed, outcome: Outcome, options: DeliveryWorkerOptions) {
  const attempt = message.attempts + 1;
  const delivered = isDelivered(outcome.status);
  const delay = delivered ? null : nextRetryDelay(attempt, message.livemode, options.sandboxRetryScale);
  const nextRetryAt = delay === null ? null : new Date(Date.now() + delay);
  await tenantDb({ businessId: message.businessId, livemode: message.livemode }).$transaction(async (tx) => {
    const delivery = await tx.webhookDelivery.create({ data: deliveryRow(message, attempt, outcome, nextRetryAt) });
    // Only while the claim is still ours: if the lease ran out and another worker claimed the
    // message (or it was resent by hand), that claim now decides what comes next. The
    // attempt itself did happen, so it stays in the log.
    const updated = await tx.webhookMessage.updateMany({
      where: { id: message.id, nextAttemptAt: message.leaseUntil },
      data: { attempts: attempt, state: delivered ? 'delivered' : nextRetryAt ? 'pending' : 'failed', nextAttemptAt: nextRetryAt ?? new Date() },
    });
    if (updated.count === 0) return;
    // A destination failing on our side of the contract (5xx) is news for the integrator,
    // except about the news itself, which would loop.
    if (outcome.status !== null && outcome.status >= 500 && nextRetryAt && message.eventType !== 'delivery.retrying') {
      const origin = { businessId: message.businessId, livemode: message.livemode, requestId: null, idempotencyKey: null };
      // An app endpoint's event is another business's: its booking is not the endpoint owner's.
      const bookingId = message.event.businessId === message.businessId ? message.event.bookingId : null;
      await recordEvent(tx, origin, { type: 'delivery.retrying', bookingId, object: present('webhook_delivery', WEBHOOK_DELIVERY_FIELDS, delivery) });
    }
  });
}

function groupBy<T>(items: T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}

/**
 * Record delivered attempts (2xx answers) together, in ONE statement (atomic by itself): the
 * attempts are inserted and their messages marked delivered, each message only while the
 * claim is still ours (as in recordAttempt; nothing else follows a delivered attempt, so
 * which messages matched does not matter). The tenant scope holds as in recordAttempt, here
 * written as SQL: every attempt is written with its message's own business and environment
 * (and only where that message still exists in them), every update matches them too.
 * (Through the ORM, one insert of n rows costs about n times an insert of one: as SQL with
 * one JSON parameter, a batch costs about one statement.) $1 the attempts as JSON, $2 now.
 */
export const RECORD_DELIVERED_SQL = `
  WITH t AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(
      id text, "messageId" text, "businessId" text, livemode boolean, "endpointId" text, "eventId" text, "eventType" text,
      url text, attempt int, "responseStatus" int, "durationMs" int, lease timestamptz)
  ), attempts AS (
    INSERT INTO "WebhookDelivery" (id, "businessId", livemode, "messageId", "endpointId", "eventId", "eventType", url, attempt, "responseStatus", "durationMs", error, "nextRetryAt")
    SELECT t.id, t."businessId", t.livemode, t."messageId", t."endpointId", t."eventId", t."eventType", t.url, t.attempt, t."responseStatus", t."durationMs", NULL, NULL
      FROM t JOIN "WebhookMessage" m ON m.id = t."messageId" AND m."businessId" = t."businessId" AND m.livemode = t.livemode
  )
  UPDATE "WebhookMessage" m SET attempts = t.attempt, state = 'delivered', "nextAttemptAt" = $2, "updatedAt" = $2
    FROM t
   WHERE m.id = t."messageId" AND m."nextAttemptAt" = t.lease AND m."businessId" = t."businessId" AND m.livemode = t.livemode`;

async function recordDelivered(sql: Sql, done: { message: Claimed; outcome: Outcome }[]) {
  const rows = done.map(({ message: m, outcome }) => ({
    id: newId('webhookDelivery'),
    messageId: m.id,
    businessId: m.businessId,
    livemode: m.livemode,
    endpointId: m.endpointId,
    eventId: m.eventId,
    eventType: m.eventType,
    url: m.endpoint.url,
    attempt: m.attempts + 1,
    responseStatus: outcome.status,
    durationMs: outcome.durationMs,
    lease: m.leaseUntil.toISOString(),
  }));
  await sql(RECORD_DELIVERED_SQL, [JSON.stringify(rows), new Date()]);
}

export interface DeliveryWorker {
  /** Look for due messages now (called on NOTIFY and after local commits). */
  kick(): void;
  /** Run until nothing is due (tests, shutdown). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

/** Attempts recorded together at most. */
const RECORD_BATCH = 500;

/**
 * Start delivering webhooks from the outbox; runs inside `npm start` and alone in `npm run worker`.
 *
 * Claims (one statement, up to `batchSize` messages) refill a local queue once it is half
 * empty.
 * Up to `concurrency` attempts await their answers at once, at most one per endpoint: an
 * endpoint gets its events one at a time, in order (best effort: a retry or another worker
 * can still reorder), while different endpoints are served in parallel, so a slow or silent
 * destination holds one of them for up to `timeoutMs`, never the deliveries of everyone
 * else. Once answered, the endpoint's next message may go; attempts are recorded behind:
 * delivered ones together (group commit: what was answered while the previous batch was
 * written goes in the next one, see recordDelivered), the others one by one as before
 * (retry schedule, `delivery.retrying`).
 * A claimed message waits behind at most `perEndpointLimit` messages of its own endpoint and
 * `batchSize / concurrency` rounds of attempts, which the lease must cover (defaults: 5, and
 * 200 / 64 -> 4 attempts of at most 10 s, within the 60 s lease).
 */
export async function startDeliveryWorker(db: Database, overrides: Partial<DeliveryWorkerOptions> = {}): Promise<DeliveryWorker> {
  const options = { ...DEFAULT_WORKER_OPTIONS, ...overrides };
  // Claims look across every business; each attempt is then written in its own tenant's scope.
  const tenantDb = tenantDbFactory(db.prisma);
  const sql = sqlRunner(db);
  const platform = platformSql(db);
  if (options.leaseMs <= options.timeoutMs) {
    log.warn(`webhook worker: the lease (${options.leaseMs} ms) is not longer than the answer timeout (${options.timeoutMs} ms); another worker may send a message again while a slow answer is awaited`);
  }
  const perEndpoint = perEndpointLimit(options);
  let stopped = false;
  /** Something may be due: a NOTIFY, the poll, a claim that took all it asked for, room at an endpoint. */
  let wanted = false;
  let claiming: Promise<void> | null = null;
  let looping = false;
  let running: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;
  /** Claimed, waiting for their endpoint and a free lane (in due order). */
  const queue: Claimed[] = [];
  /** Endpoints with an attempt awaiting its answer. */
  const busy = new Set<string>();
  /** Per endpoint, messages queued or awaiting their answer. */
  const held = new Map<string, number>();
  /**
   * Endpoints that may have more due than the last claim took: it stopped at their limit, or
   * left them out as full. Room at one of them wants a claim at once, not at the next poll:
   * otherwise an endpoint with a backlog got `perEndpoint` messages a poll (5 a second).
   */
  const backlogged = new Set<string>();
  /** Claimed here and not recorded yet, by id. */
  const mine = new Set<string>();
  /** Delivered, waiting for the next batch to be recorded. */
  let toRecord: { message: Claimed; outcome: Outcome }[] = [];
  let recording: Promise<void> | null = null;
  /** Attempts recorded one by one, under way. */
  const singles = new Set<Promise<void>>();

  function signal() {
    const w = wake;
    wake = null;
    w?.();
  }

  function claim() {
    wanted = false;
    const limit = options.batchSize - queue.length;
    const holding: Holding = { messageIds: [...mine], endpointIds: [], counts: [] };
    const full: string[] = [];
    for (const [endpointId, n] of held) {
      if (n >= perEndpoint) full.push(endpointId);
      else {
        holding.endpointIds.push(endpointId);
        holding.counts.push(n);
      }
    }
    // The room of the endpoints held here as of now (one not held has all of perEndpoint).
    const room = new Map(holding.endpointIds.map((id, i) => [id, perEndpoint - holding.counts[i]]));
    const looked = [...room.keys(), ...[...backlogged].filter((id) => !held.has(id))];
    claiming = claimDue(platform, options, limit, holding, perEndpoint, full)
      .then(
        (claimed) => {
          const took = new Map<string, number>();
          for (const m of claimed) {
            queue.push(m);
            mine.add(m.id);
            held.set(m.endpointId, (held.get(m.endpointId) ?? 0) + 1);
            took.set(m.endpointId, (took.get(m.endpointId) ?? 0) + 1);
          }
          // Filled to its room: there may be more. Short of it: it took all that was due there.
          for (const endpointId of new Set([...looked, ...took.keys()])) {
            if ((took.get(endpointId) ?? 0) >= (room.get(endpointId) ?? perEndpoint)) backlogged.add(endpointId);
            else backlogged.delete(endpointId);
          }
          if (claimed.length === limit) wanted = true; // there may be more
        },
        (err) => {
          if (!stopped) log.error({ err }, 'webhook claim failed'); // the next NOTIFY or poll tries again
        },
      )
      .finally(() => {
        claiming = null;
        signal();
      });
  }

  /** The oldest queued message whose endpoint has nothing awaiting an answer. */
  function nextSendable(): Claimed | undefined {
    const index = busy.size === 0 ? (queue.length > 0 ? 0 : -1) : queue.findIndex((m) => !busy.has(m.endpointId));
    return index < 0 ? undefined : queue.splice(index, 1)[0];
  }

  function recorded(message: Claimed) {
    mine.delete(message.id);
  }

  function flush() {
    const batch = toRecord.splice(0, RECORD_BATCH);
    recording = recordDelivered(sql, batch)
      .catch(async (err) => {
        // One failing row (say its endpoint was deleted meanwhile) must not cost the others
        // their record: each on its own, as without batching.
        if (!stopped) log.error({ err }, 'webhook attempts not recorded together; recording them one by one');
        await Promise.all(batch.map((d) => recordAttempt(tenantDb, d.message, d.outcome, options).catch((e) => log.error({ err: e }, 'webhook attempt not recorded'))));
      })
      .finally(() => {
        for (const d of batch) recorded(d.message);
        recording = null;
        if (toRecord.length > 0) flush();
        signal();
      });
  }

  function record(message: Claimed, outcome: Outcome) {
    if (options.onAttempt) {
      const delivered = isDelivered(outcome.status);
      options.onAttempt(delivered ? 'delivered' : nextRetryDelay(message.attempts + 1, message.livemode, options.sandboxRetryScale) === null ? 'failed' : 'retrying');
    }
    if (isDelivered(outcome.status)) {
      toRecord.push({ message, outcome });
      if (!recording) flush();
      return;
    }
    const single: Promise<void> = recordAttempt(tenantDb, message, outcome, options)
      .catch((err) => log.error({ err }, 'webhook attempt not recorded'))
      .finally(() => {
        singles.delete(single);
        recorded(message);
        signal();
      });
    singles.add(single);
  }

  function send1(message: Claimed) {
    busy.add(message.endpointId);
    void send(message, options.timeoutMs, options.privateUrls).then((outcome) => {
      busy.delete(message.endpointId);
      const n = held.get(message.endpointId)!;
      if (n <= 1) held.delete(message.endpointId);
      else held.set(message.endpointId, n - 1);
      // Room again at an endpoint a claim had to stop at: it may have more due.
      if (backlogged.has(message.endpointId)) wanted = true;
      record(message, outcome);
      signal();
    });
  }

  const unrecorded = () => mine.size > 0;

  async function loop() {
    try {
      while (!stopped) {
        for (let next = busy.size < options.concurrency ? nextSendable() : undefined; next; next = busy.size < options.concurrency ? nextSendable() : undefined) send1(next);
        if (wanted && !claiming && queue.length <= options.batchSize / 2) {
          claim();
          continue;
        }
        if (!claiming && !wanted && busy.size === 0 && queue.length === 0 && !unrecorded()) return; // idle
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      // Synchronously with the decision to stop, so that no kick can fall in between.
      looping = false;
    }
  }

  function kick() {
    if (stopped) return;
    wanted = true;
    if (looping) return signal();
    looping = true;
    running = loop();
  }

  /** Give back claimed messages not sent yet, so that another worker can take them at once. */
  async function release(messages: Claimed[]) {
    for (const group of groupBy(messages, (m) => String(m.leaseUntil.getTime()))) {
      await db.prisma.webhookMessage
        .updateMany({ where: { id: { in: group.map((m) => m.id) }, nextAttemptAt: group[0].leaseUntil }, data: { nextAttemptAt: new Date() } })
        .catch((err) => log.error({ err }, 'webhook claims not released'));
    }
    for (const m of messages) recorded(m);
  }

  /** Until every attempt under way is answered and recorded. */
  async function settle() {
    while (busy.size > 0 || recording || singles.size > 0 || toRecord.length > 0) {
      if (recording) await recording;
      else if (singles.size > 0) await Promise.all([...singles]);
      else await new Promise<void>((resolve) => setTimeout(resolve, 5));
    }
  }

  const unlisten = await db.listen(OUTBOX_CHANNEL, kick);
  const timer = setInterval(kick, options.pollMs);
  timer.unref();
  kick();

  return {
    kick,
    async drain() {
      kick();
      while (looping) await running;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      signal();
      await unlisten();
      await running;
      await claiming;
      await release(queue.splice(0));
      await settle();
    },
  };
}
