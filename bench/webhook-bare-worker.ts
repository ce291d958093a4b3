// Child process: the baseline for the webhooks bench. A bare node + pg + undici delivery
// worker doing the same work as src/webhooks/delivery-worker.ts for messages answered 2xx,
// the same way, without Prisma:
//   - LISTEN rental_outbox + poll; claims of up to 200 due messages in ONE statement (the
//     same SQL on a pg pool: FOR UPDATE SKIP LOCKED, lease, at most 5 held per endpoint,
//     event and endpoint joined in), refilling a local queue when it is half empty;
//   - up to 64 attempts awaiting their answers at once, at most one per endpoint (each
//     endpoint in order), through undici's dispatch API on a keep-alive Agent (connections
//     reused), settled at the answer's head, signed per Standard Webhooks;
//   - delivered attempts recorded together (group commit: what was answered while the
//     previous batch was written goes in the next), in one statement with one JSON
//     parameter (the project's SQL: insert the attempts, mark their messages delivered while
//     the lease holds); other attempts one by one with a plain 5 s retry and no
//     delivery.retrying event (the bench receiver always answers 204).
// Env: DATABASE_URL (required), DATABASE_POOL_SIZE (20), WEBHOOK_POLL_MS (1000),
//      WEBHOOK_LEASE_MS (60000), WEBHOOK_TIMEOUT_MS (10000).
// Prints "webhook worker <pid> (baseline)" when listening, like `npm run worker`.
import { createHmac } from 'node:crypto';
import pg from 'pg';
import { Agent, type Dispatcher } from 'undici';
import { newId } from '../src/domain/shared/ids.ts';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const POLL_MS = Number(process.env.WEBHOOK_POLL_MS || 1_000);
const LEASE_MS = Number(process.env.WEBHOOK_LEASE_MS || 60_000);
const TIMEOUT_MS = Number(process.env.WEBHOOK_TIMEOUT_MS || 10_000);
const BATCH = 200;
const CONCURRENCY = 64;
const PER_ENDPOINT = Math.max(1, Math.floor(LEASE_MS / TIMEOUT_MS) - 1);
const RECORD_BATCH = 500;

const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 20) });
pool.on('error', () => {});
const agent = new Agent();

interface Claimed {
  id: string;
  businessId: string;
  livemode: boolean;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempts: number;
  type: string;
  data: unknown;
  requestId: string | null;
  idempotencyKey: string | null;
  eventCreatedAt: Date;
  url: string;
  secret: string;
  leaseUntil: Date;
}

type Outcome = { status: number | null; error: string | null; durationMs: number };

async function inTransaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const result = await fn(c);
    await c.query('COMMIT');
    return result;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

const CLAIM_SQL = `
  WITH candidates AS (
    SELECT id, "endpointId", "nextAttemptAt", "eventId" FROM "WebhookMessage"
     WHERE state = 'pending' AND "nextAttemptAt" <= $1
       AND NOT (id = ANY($2::text[])) AND NOT ("endpointId" = ANY($3::text[]))
     ORDER BY "nextAttemptAt", "eventId"
     LIMIT $4
  ), ranked AS (
    SELECT c.id, row_number() OVER (PARTITION BY c."endpointId" ORDER BY c."nextAttemptAt", c."eventId") + coalesce(h.n, 0) AS k
      FROM candidates c
      LEFT JOIN unnest($5::text[], $6::int[]) AS h(endpoint, n) ON h.endpoint = c."endpointId"
  ), due AS (
    SELECT m.id, m."nextAttemptAt" AS "dueAt" FROM "WebhookMessage" m
     WHERE m.id IN (SELECT id FROM ranked WHERE k <= $7) AND m.state = 'pending' AND m."nextAttemptAt" <= $1
     ORDER BY m."nextAttemptAt", m."eventId"
     LIMIT $8
     FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE "WebhookMessage" m SET "nextAttemptAt" = $9, "updatedAt" = $1
      FROM due WHERE m.id = due.id
    RETURNING m.id, m."businessId", m.livemode, m."endpointId", m."eventId", m."eventType", m.attempts, due."dueAt"
  )
  SELECT c.id, c."businessId", c.livemode, c."endpointId", c."eventId", c."eventType", c.attempts,
         e.type, e."bookingId", e.data, e."requestId", e."idempotencyKey", e."createdAt" AS "eventCreatedAt", w.url, w.secret
    FROM claimed c JOIN "Event" e ON e.id = c."eventId" JOIN "WebhookEndpoint" w ON w.id = c."endpointId"
   ORDER BY c."dueAt", c."eventId"`;

async function claimDue(limit: number, mine: string[], full: string[], heldEndpoints: string[], heldCounts: number[]): Promise<Claimed[]> {
  const now = new Date();
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const { rows } = await pool.query<Omit<Claimed, 'leaseUntil'>>(CLAIM_SQL, [now, mine, full, limit * 4, heldEndpoints, heldCounts, PER_ENDPOINT, limit, leaseUntil]);
  return rows.map((r) => ({ ...r, leaseUntil }));
}

async function send(m: Claimed): Promise<Outcome> {
  const body = JSON.stringify({
    id: m.eventId,
    object: 'event',
    type: m.type,
    api_version: 'v1',
    created_at: m.eventCreatedAt.toISOString(),
    livemode: m.livemode,
    data: m.data,
    request: { id: m.requestId, idempotency_key: m.idempotencyKey },
  });
  const timestamp = Math.floor(Date.now() / 1000);
  const key = Buffer.from(m.secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${m.eventId}.${timestamp}.${body}`).digest('base64');
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'RentalAPI-Webhooks/1.0',
    'webhook-id': m.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${signature}`,
  };
  const started = performance.now();
  const res = await post(m.url, headers, body);
  return { status: res.status, error: res.error, durationMs: Math.round(performance.now() - started) };
}

/** The project's way (undici dispatch, keep-alive Agent, settled at the answer's head, a plain timer). */
function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number | null; error: string | null }> {
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let abort: ((reason: Error) => void) | null = null;
    const settle = (outcome: { status: number | null; error: string | null }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      abort?.(new Error('timeout'));
      settle({ status: null, error: `no answer within ${TIMEOUT_MS} ms` });
    }, TIMEOUT_MS);
    try {
      let target = targets.get(url);
      if (!target) {
        const parsed = new URL(url);
        targets.set(url, (target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` }));
      }
      agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body }, {
        onConnect(a: (reason: Error) => void) {
          abort = a;
          if (timedOut) a(new Error('timeout'));
        },
        onHeaders(statusCode: number) {
          settle({ status: statusCode, error: null });
          return true;
        },
        onData: () => true,
        onComplete() {},
        onError(err: Error) {
          settle({ status: null, error: err.message });
        },
      } as unknown as Dispatcher.DispatchHandler);
    } catch (err) {
      settle({ status: null, error: (err as Error).message });
    }
  });
}
const targets = new Map<string, { origin: string; path: string }>();

const deliveryId = () => newId('webhookDelivery');

/** Delivered attempts together: the same single statement as the project (one JSON parameter). */
async function recordDelivered(done: { m: Claimed; outcome: Outcome }[]) {
  const deliveredAt = new Date();
  const rows = JSON.stringify(
    done.map(({ m, outcome }) => ({
      id: deliveryId(),
      messageId: m.id,
      businessId: m.businessId,
      livemode: m.livemode,
      endpointId: m.endpointId,
      eventId: m.eventId,
      eventType: m.eventType,
      url: m.url,
      attempt: m.attempts + 1,
      responseStatus: outcome.status,
      durationMs: outcome.durationMs,
      lease: m.leaseUntil.toISOString(),
    })),
  );
  await pool.query(
    `WITH t AS (
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
      WHERE m.id = t."messageId" AND m."nextAttemptAt" = t.lease AND m."businessId" = t."businessId" AND m.livemode = t.livemode`,
    [rows, deliveredAt],
  );
}

async function recordOne(m: Claimed, outcome: Outcome) {
  const attempt = m.attempts + 1;
  const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const nextRetryAt = delivered ? null : new Date(Date.now() + 5_000);
  await inTransaction(async (c) => {
    await c.query(
      `INSERT INTO "WebhookDelivery" (id, "businessId", livemode, "messageId", "endpointId", "eventId", "eventType", url, attempt, "responseStatus", "durationMs", error, "nextRetryAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
      [deliveryId(), m.businessId, m.livemode, m.id, m.endpointId, m.eventId, m.eventType, m.url, attempt, outcome.status, outcome.durationMs, outcome.error, nextRetryAt],
    );
    await c.query(`UPDATE "WebhookMessage" SET attempts = $2, state = $3, "nextAttemptAt" = $4, "updatedAt" = now() WHERE id = $1 AND "nextAttemptAt" = $5`, [
      m.id,
      attempt,
      delivered ? 'delivered' : 'pending',
      nextRetryAt ?? new Date(),
      m.leaseUntil,
    ]);
  });
}

// ------------------------------------------------------------------ the same scheduling as the project

let stopped = false;
let wanted = false;
let claiming: Promise<void> | null = null;
let looping = false;
let wake: (() => void) | null = null;
const queue: Claimed[] = [];
const busy = new Set<string>();
const held = new Map<string, number>();
const mine = new Set<string>();
let toRecord: { m: Claimed; outcome: Outcome }[] = [];
let recording: Promise<void> | null = null;

function signal() {
  const w = wake;
  wake = null;
  w?.();
}

function claim() {
  wanted = false;
  const limit = BATCH - queue.length;
  const full: string[] = [];
  const heldEndpoints: string[] = [];
  const heldCounts: number[] = [];
  for (const [endpointId, n] of held) {
    if (n >= PER_ENDPOINT) full.push(endpointId);
    else {
      heldEndpoints.push(endpointId);
      heldCounts.push(n);
    }
  }
  claiming = claimDue(limit, [...mine], full, heldEndpoints, heldCounts)
    .then(
      (claimed) => {
        for (const m of claimed) {
          queue.push(m);
          mine.add(m.id);
          held.set(m.endpointId, (held.get(m.endpointId) ?? 0) + 1);
        }
        if (claimed.length === limit) wanted = true;
      },
      (err) => {
        if (!stopped) console.error('baseline claim failed', err);
      },
    )
    .finally(() => {
      claiming = null;
      signal();
    });
}

function nextSendable(): Claimed | undefined {
  const index = busy.size === 0 ? (queue.length > 0 ? 0 : -1) : queue.findIndex((m) => !busy.has(m.endpointId));
  return index < 0 ? undefined : queue.splice(index, 1)[0];
}

function flush() {
  const batch = toRecord.splice(0, RECORD_BATCH);
  recording = recordDelivered(batch)
    .catch(async (err) => {
      console.error('baseline attempts not recorded together', err);
      await Promise.all(batch.map((d) => recordOne(d.m, d.outcome).catch(() => {})));
    })
    .finally(() => {
      for (const d of batch) mine.delete(d.m.id);
      recording = null;
      if (toRecord.length > 0) flush();
      signal();
    });
}

function record(m: Claimed, outcome: Outcome) {
  if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
    toRecord.push({ m, outcome });
    if (!recording) flush();
    return;
  }
  void recordOne(m, outcome)
    .catch((err) => console.error('baseline attempt not recorded', err))
    .finally(() => {
      mine.delete(m.id);
      signal();
    });
}

function send1(m: Claimed) {
  busy.add(m.endpointId);
  void send(m).then((outcome) => {
    busy.delete(m.endpointId);
    const n = held.get(m.endpointId)!;
    if (n <= 1) held.delete(m.endpointId);
    else held.set(m.endpointId, n - 1);
    if (n >= PER_ENDPOINT) wanted = true;
    record(m, outcome);
    signal();
  });
}

async function loop() {
  try {
    while (!stopped) {
      for (let next = busy.size < CONCURRENCY ? nextSendable() : undefined; next; next = busy.size < CONCURRENCY ? nextSendable() : undefined) send1(next);
      if (wanted && !claiming && queue.length <= BATCH / 2) {
        claim();
        continue;
      }
      if (!claiming && !wanted && busy.size === 0 && queue.length === 0 && mine.size === 0) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    looping = false;
  }
}

function kick() {
  if (stopped) return;
  wanted = true;
  if (looping) return signal();
  looping = true;
  void loop();
}

const listener = new pg.Client({ connectionString: databaseUrl });
listener.on('notification', (msg) => msg.channel === 'rental_outbox' && kick());
listener.on('error', () => {});
await listener.connect();
await listener.query('LISTEN rental_outbox');
const timer = setInterval(kick, POLL_MS);
kick();
console.log(`webhook worker ${process.pid} (baseline) delivering from PostgreSQL`);

const shutdown = async () => {
  stopped = true;
  clearInterval(timer);
  signal();
  setTimeout(() => process.exit(1), 5_000).unref();
  await listener.end().catch(() => {});
  await claiming;
  while (busy.size > 0 || recording || toRecord.length > 0) await (recording ?? new Promise((r) => setTimeout(r, 5)));
  await pool.end().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
