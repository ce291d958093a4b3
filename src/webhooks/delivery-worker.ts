import type { AppConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { OUTBOX_CHANNEL, presentEvent, recordEvent } from '../domain/events/event.service.ts';
import { newId } from '../domain/shared/ids.ts';
import { present } from '../domain/shared/presenter.ts';
import { WEBHOOK_DELIVERY_FIELDS } from '../domain/webhooks/webhook.fields.ts';
import { isDelivered, nextRetryDelay } from '../domain/webhooks/retry-schedule.ts';
import { signatureHeaders } from '../domain/webhooks/signing.ts';

export interface DeliveryWorkerOptions {
  /** Fallback poll for due retries (NOTIFY wakes the worker for new events). */
  pollMs: number;
  /** How long a claimed message is reserved for its sender before another worker may take it. */
  leaseMs: number;
  /** An answer slower than this counts as failed (CONTRACT.md: 10 s). */
  timeoutMs: number;
  batchSize: number;
  concurrency: number;
  /** SANDBOX_RETRY_SCALE: multiplies the retry delays of test-mode deliveries. */
  sandboxRetryScale: number;
}

export const DEFAULT_WORKER_OPTIONS: DeliveryWorkerOptions = { pollMs: 1_000, leaseMs: 60_000, timeoutMs: 10_000, batchSize: 50, concurrency: 16, sandboxRetryScale: 1 };

/** Worker options from the app configuration (WEBHOOK_* and SANDBOX_RETRY_SCALE variables). */
export function workerOptions(config: AppConfig): Partial<DeliveryWorkerOptions> {
  return { pollMs: config.webhookPollMs, leaseMs: config.webhookLeaseMs, timeoutMs: config.webhookTimeoutMs, sandboxRetryScale: config.sandboxRetryScale };
}

type Claimed = Awaited<ReturnType<typeof claimDue>>[number];

/**
 * Claim due messages: FOR UPDATE SKIP LOCKED lets any number of workers (processes) run side
 * by side without two taking one message; the lease pushes `nextAttemptAt` forward so a
 * message claimed by a worker that died becomes due again once the lease runs out.
 */
async function claimDue(db: Database, options: DeliveryWorkerOptions) {
  return db.prisma.$transaction(async (tx) => {
    const now = new Date();
    const due = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM "WebhookMessage"
       WHERE state = 'pending' AND "nextAttemptAt" <= ${now}
       ORDER BY "nextAttemptAt"
       LIMIT ${options.batchSize}
       FOR UPDATE SKIP LOCKED`;
    if (due.length === 0) return [];
    const ids = due.map((r) => r.id);
    await tx.webhookMessage.updateMany({ where: { id: { in: ids } }, data: { nextAttemptAt: new Date(now.getTime() + options.leaseMs) } });
    return tx.webhookMessage.findMany({ where: { id: { in: ids } }, include: { event: true, endpoint: true } });
  });
}

/** POST one event to its endpoint, signed per Standard Webhooks; never throws. */
async function send(message: Claimed, timeoutMs: number) {
  const body = JSON.stringify(presentEvent(message.event));
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'RentalAPI-Webhooks/1.0',
    // The event id is the message id: stable across retries, so receivers can deduplicate.
    ...signatureHeaders(message.endpoint.secret, message.event.id, Math.floor(Date.now() / 1000), body),
  };
  const started = performance.now();
  try {
    const res = await fetch(message.endpoint.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel().catch(() => {});
    return { status: res.status, error: null, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    const reason = timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${((err as Error).cause as Error)?.message ?? (err as Error).message}`;
    return { status: null, error: reason, durationMs: Math.round(performance.now() - started) };
  }
}

/** Record one attempt and schedule what follows, in one transaction. */
async function recordAttempt(db: Database, message: Claimed, outcome: Awaited<ReturnType<typeof send>>, options: DeliveryWorkerOptions) {
  const attempt = message.attempts + 1;
  const delivered = isDelivered(outcome.status);
  const delay = delivered ? null : nextRetryDelay(attempt, message.livemode, options.sandboxRetryScale);
  const nextRetryAt = delay === null ? null : new Date(Date.now() + delay);
  await db.prisma.$transaction(async (tx) => {
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
    await tx.webhookMessage.update({
      where: { id: message.id },
      data: { attempts: attempt, state: delivered ? 'delivered' : nextRetryAt ? 'pending' : 'failed', nextAttemptAt: nextRetryAt ?? new Date() },
    });
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

/** Start delivering webhooks from the outbox; runs inside `npm start` and alone in `npm run worker`. */
export async function startDeliveryWorker(db: Database, overrides: Partial<DeliveryWorkerOptions> = {}): Promise<DeliveryWorker> {
  const options = { ...DEFAULT_WORKER_OPTIONS, ...overrides };
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();

  async function loop() {
    do {
      again = false;
      let claimed: Claimed[];
      try {
        claimed = await claimDue(db, options);
      } catch (err) {
        if (!stopped) console.error('webhook claim failed', err);
        return;
      }
      if (claimed.length === 0) continue;
      again = true;
      let next = 0;
      const lane = async () => {
        while (next < claimed.length && !stopped) {
          const message = claimed[next++];
          const outcome = await send(message, options.timeoutMs);
          await recordAttempt(db, message, outcome, options).catch((err) => console.error('webhook attempt not recorded', err));
        }
      };
      await Promise.all(Array.from({ length: Math.min(options.concurrency, claimed.length) }, lane));
    } while (again && !stopped);
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    const run = loop().finally(() => {
      inFlight.delete(run);
      running = null;
    });
    running = run;
    inFlight.add(run);
  }

  const unlisten = await db.listen(OUTBOX_CHANNEL, kick);
  const timer = setInterval(kick, options.pollMs);
  timer.unref();
  kick();

  return {
    kick,
    async drain() {
      kick();
      while (running) await running;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await unlisten();
      await Promise.all([...inFlight]);
    },
  };
}
