import type { AppConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { tenantDbFactory, type TenantDbFactory } from '../db/tenant-db.ts';
import { OUTBOX_CHANNEL, presentEvent, recordEvent } from '../domain/events/event.service.ts';
import { newId } from '../domain/shared/ids.ts';
import { present } from '../domain/shared/presenter.ts';
import { WEBHOOK_DELIVERY_FIELDS } from '../domain/webhooks/webhook.fields.ts';
import { isDelivered, nextRetryDelay } from '../domain/webhooks/retry-schedule.ts';
import { signatureHeaders } from '../domain/webhooks/signing.ts';
import { privateTargetsAllowed, type PrivateTargetPolicy } from '../domain/webhooks/url-policy.ts';
import { guardedFetch } from './guarded-dispatcher.ts';

export interface DeliveryWorkerOptions {
  /** Fallback poll for due retries (NOTIFY wakes the worker for new events). */
  pollMs: number;
  /** How long a claimed message is reserved for its sender before another worker may take it. */
  leaseMs: number;
  /** An answer slower than this counts as failed (the contract: 10 s). */
  timeoutMs: number;
  batchSize: number;
  concurrency: number;
  /** SANDBOX_RETRY_SCALE: multiplies the retry delays of test-mode deliveries. */
  sandboxRetryScale: number;
  /** WEBHOOK_PRIVATE_URLS: where private targets are reached (elsewhere the guarded dispatcher refuses them). */
  privateUrls: PrivateTargetPolicy;
}

export const DEFAULT_WORKER_OPTIONS: DeliveryWorkerOptions = { pollMs: 1_000, leaseMs: 60_000, timeoutMs: 10_000, batchSize: 50, concurrency: 16, sandboxRetryScale: 1, privateUrls: 'sandbox' };

/** Worker options from the app configuration (WEBHOOK_* and SANDBOX_RETRY_SCALE variables). */
export function workerOptions(config: AppConfig): Partial<DeliveryWorkerOptions> {
  return { pollMs: config.webhookPollMs, leaseMs: config.webhookLeaseMs, timeoutMs: config.webhookTimeoutMs, sandboxRetryScale: config.sandboxRetryScale, privateUrls: config.webhookPrivateUrls };
}

type Claimed = Awaited<ReturnType<typeof claimDue>>[number];

/**
 * Claim up to `limit` due messages: FOR UPDATE SKIP LOCKED lets any number of workers
 * (processes) run side by side without two taking one message; the lease pushes
 * `nextAttemptAt` forward so a message claimed by a worker that died becomes due again once
 * the lease runs out. The lease end also marks the claim as ours (see recordAttempt).
 */
async function claimDue(db: Database, options: DeliveryWorkerOptions, limit: number, sending: string[]) {
  return db.prisma.$transaction(async (tx) => {
    const now = new Date();
    // Never one this worker is still sending (its lease may run out while an answer is slow).
    const due = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM "WebhookMessage"
       WHERE state = 'pending' AND "nextAttemptAt" <= ${now} AND NOT (id = ANY(${sending}::text[]))
       ORDER BY "nextAttemptAt", "eventId"
       LIMIT ${limit}
       FOR UPDATE SKIP LOCKED`;
    if (due.length === 0) return [];
    const ids = due.map((r) => r.id);
    const leaseUntil = new Date(now.getTime() + options.leaseMs);
    await tx.webhookMessage.updateMany({ where: { id: { in: ids } }, data: { nextAttemptAt: leaseUntil } });
    const messages = await tx.webhookMessage.findMany({ where: { id: { in: ids } }, include: { event: true, endpoint: true } });
    return messages.map((m) => ({ ...m, leaseUntil }));
  });
}

/**
 * POST one event to its endpoint, signed per Standard Webhooks; never throws. Where private
 * targets are not allowed, through the guarded dispatcher: a refused address is a failed
 * attempt like any network error.
 */
async function send(message: Claimed, timeoutMs: number, privateUrls: PrivateTargetPolicy) {
  const body = JSON.stringify(presentEvent(message.event));
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'RentalAPI-Webhooks/1.0',
    // The event id is the message id: stable across retries, so receivers can deduplicate.
    ...signatureHeaders(message.endpoint.secret, message.event.id, Math.floor(Date.now() / 1000), body),
  };
  const started = performance.now();
  try {
    const post = privateTargetsAllowed(privateUrls, message.livemode) ? fetch : guardedFetch;
    const res = await post(message.endpoint.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel().catch(() => {});
    return { status: res.status, error: null, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    const reason = timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${((err as Error).cause as Error)?.message ?? (err as Error).message}`;
    return { status: null, error: reason, durationMs: Math.round(performance.now() - started) };
  }
}

/** Record one attempt and schedule what follows, in one transaction of the message's tenant. */
async function recordAttempt(tenantDb: TenantDbFactory, message: Claimed, outcome: Awaited<ReturnType<typeof send>>, options: DeliveryWorkerOptions) {
  const attempt = message.attempts + 1;
  const delivered = isDelivered(outcome.status);
  const delay = delivered ? null : nextRetryDelay(attempt, message.livemode, options.sandboxRetryScale);
  const nextRetryAt = delay === null ? null : new Date(Date.now() + delay);
  await tenantDb({ businessId: message.businessId, livemode: message.livemode }).$transaction(async (tx) => {
    const delivery = await tx.webhookDelivery.create({
      data: {
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
      },
    });
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
      await recordEvent(tx, origin, { type: 'delivery.retrying', bookingId: message.event.bookingId, object: present('webhook_delivery', WEBHOOK_DELIVERY_FIELDS, delivery) });
    }
  });
}

export interface DeliveryWorker {
  /** Look for due messages now (called on NOTIFY and after local commits). */
  kick(): void;
  /** Run until nothing is due (tests, shutdown). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Start delivering webhooks from the outbox; runs inside `npm start` and alone in `npm run worker`.
 *
 * `concurrency` lanes send; each takes the next claimed message as soon as it is free. Claims
 * (up to `batchSize` messages, one transaction) run beside the lanes and refill the local
 * queue when it runs low, so a slow or silent destination holds one lane for up to
 * `timeoutMs`, never the deliveries of everyone else. A claimed message waits at most for
 * the `batchSize / concurrency` rounds of attempts ahead of it, which the lease must cover
 * (defaults: 50 / 16 -> 4 attempts of at most 10 s, within the 60 s lease).
 */
export async function startDeliveryWorker(db: Database, overrides: Partial<DeliveryWorkerOptions> = {}): Promise<DeliveryWorker> {
  const options = { ...DEFAULT_WORKER_OPTIONS, ...overrides };
  // Claims look across every business; each attempt is then written in its own tenant's scope.
  const tenantDb = tenantDbFactory(db.prisma);
  if (options.leaseMs <= options.timeoutMs) {
    console.warn(`webhook worker: the lease (${options.leaseMs} ms) is not longer than the answer timeout (${options.timeoutMs} ms); another worker may send a message again while a slow answer is awaited`);
  }
  let stopped = false;
  /** Something may be due: a NOTIFY, the poll, or a claim that took all it asked for. */
  let wanted = false;
  let claiming: Promise<void> | null = null;
  let looping = false;
  let running: Promise<void> = Promise.resolve();
  let wake: (() => void) | null = null;
  /** Claimed, waiting for a free lane. */
  const queue: Claimed[] = [];
  /** Attempts under way, with their message. */
  const sending = new Map<Promise<void>, Claimed>();

  function signal() {
    const w = wake;
    wake = null;
    w?.();
  }

  function claim() {
    wanted = false;
    const limit = options.batchSize - queue.length;
    claiming = claimDue(db, options, limit, [...queue, ...sending.values()].map((m) => m.id))
      .then(
        (claimed) => {
          queue.push(...claimed);
          if (claimed.length === limit) wanted = true; // there may be more
        },
        (err) => {
          if (!stopped) console.error('webhook claim failed', err); // the next NOTIFY or poll tries again
        },
      )
      .finally(() => {
        claiming = null;
        signal();
      });
  }

  /**
   * The oldest queued message whose endpoint has nothing in flight here: one endpoint gets
   * its events one at a time, in order (best effort: a retry or another worker can still
   * reorder), while different endpoints are served in parallel.
   */
  function nextSendable(): Claimed | undefined {
    const busy = new Set([...sending.values()].map((m) => m.endpointId));
    const index = queue.findIndex((m) => !busy.has(m.endpointId));
    return index < 0 ? undefined : queue.splice(index, 1)[0];
  }

  function send1(message: Claimed) {
    const attempt: Promise<void> = send(message, options.timeoutMs, options.privateUrls)
      .then((outcome) => recordAttempt(tenantDb, message, outcome, options))
      .catch((err) => console.error('webhook attempt not recorded', err))
      .finally(() => {
        sending.delete(attempt);
        signal();
      });
    sending.set(attempt, message);
  }

  async function loop() {
    try {
      while (!stopped) {
        for (let next = nextSendable(); next && sending.size < options.concurrency; next = nextSendable()) send1(next);
        if (wanted && !claiming && queue.length < options.concurrency) {
          claim();
          continue;
        }
        if (!claiming && !wanted && sending.size === 0 && queue.length === 0) return; // idle
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
    const byLease = new Map<number, Claimed[]>();
    for (const m of messages) byLease.set(m.leaseUntil.getTime(), [...(byLease.get(m.leaseUntil.getTime()) ?? []), m]);
    for (const [lease, group] of byLease) {
      await db.prisma.webhookMessage
        .updateMany({ where: { id: { in: group.map((m) => m.id) }, nextAttemptAt: new Date(lease) }, data: { nextAttemptAt: new Date() } })
        .catch((err) => console.error('webhook claims not released', err));
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
      await Promise.all([...sending.keys()]);
    },
  };
}
