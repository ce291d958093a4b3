// Child process: the baseline for the webhooks bench. A bare node + pg delivery worker doing
// the same work as src/webhooks/delivery-worker.ts for a message answered 2xx, with the same
// shape (LISTEN rental_outbox + poll, claim up to 50 due messages with FOR UPDATE SKIP LOCKED
// under a lease, up to 16 endpoints served at once (each endpoint in order), each attempt recorded with its message in one
// transaction) and the same SQL, without Prisma. Failed attempts get a plain 5 s retry and
// no delivery.retrying event: the bench receiver always answers 204.
// Env: DATABASE_URL (required), DATABASE_POOL_SIZE (20), WEBHOOK_POLL_MS (1000),
//      WEBHOOK_LEASE_MS (60000), WEBHOOK_TIMEOUT_MS (10000).
// Prints "webhook worker <pid> (baseline)" when listening, like `npm run worker`.
import { createHmac } from 'node:crypto';
import pg from 'pg';
import { ulid } from 'ulid';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const POLL_MS = Number(process.env.WEBHOOK_POLL_MS || 1_000);
const LEASE_MS = Number(process.env.WEBHOOK_LEASE_MS || 60_000);
const TIMEOUT_MS = Number(process.env.WEBHOOK_TIMEOUT_MS || 10_000);
const BATCH = 50;
const CONCURRENCY = 16;

const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 20) });
pool.on('error', () => {});

interface Claimed {
  id: string;
  businessId: string;
  livemode: boolean;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempts: number;
  createdAt: Date;
  data: unknown;
  requestId: string | null;
  idempotencyKey: string | null;
  url: string;
  secret: string;
}

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

function claimDue(): Promise<Claimed[]> {
  return inTransaction(async (c) => {
    const now = new Date();
    const { rows } = await c.query<{ id: string }>(
      `SELECT id FROM "WebhookMessage" WHERE state = 'pending' AND "nextAttemptAt" <= $1 ORDER BY "nextAttemptAt" LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, BATCH],
    );
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    await c.query(`UPDATE "WebhookMessage" SET "nextAttemptAt" = $2, "updatedAt" = now() WHERE id = ANY($1)`, [ids, new Date(now.getTime() + LEASE_MS)]);
    const claimed = await c.query<Claimed>(
      `SELECT m.id, m."businessId", m.livemode, m."endpointId", m."eventId", m."eventType", m.attempts,
              e."createdAt", e.data, e."requestId", e."idempotencyKey", w.url, w.secret
         FROM "WebhookMessage" m JOIN "Event" e ON e.id = m."eventId" JOIN "WebhookEndpoint" w ON w.id = m."endpointId"
        WHERE m.id = ANY($1)`,
      [ids],
    );
    return claimed.rows;
  });
}

async function send(m: Claimed) {
  const body = JSON.stringify({
    id: m.eventId,
    object: 'event',
    type: m.eventType,
    api_version: 'v1',
    created_at: m.createdAt.toISOString(),
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
  try {
    const res = await fetch(m.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
    await res.body?.cancel().catch(() => {});
    return { status: res.status as number | null, error: null as string | null, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    return { status: null, error: (err as Error).message, durationMs: Math.round(performance.now() - started) };
  }
}

async function recordAttempt(m: Claimed, outcome: Awaited<ReturnType<typeof send>>) {
  const attempt = m.attempts + 1;
  const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const nextRetryAt = delivered ? null : new Date(Date.now() + 5_000);
  await inTransaction(async (c) => {
    await c.query(
      `INSERT INTO "WebhookDelivery" (id, "businessId", livemode, "messageId", "endpointId", "eventId", "eventType", url, attempt, "responseStatus", "durationMs", error, "nextRetryAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
      [`wd_${ulid().toLowerCase()}`, m.businessId, m.livemode, m.id, m.endpointId, m.eventId, m.eventType, m.url, attempt, outcome.status, outcome.durationMs, outcome.error, nextRetryAt],
    );
    await c.query(`UPDATE "WebhookMessage" SET attempts = $2, state = $3, "nextAttemptAt" = $4, "updatedAt" = now() WHERE id = $1`, [
      m.id,
      attempt,
      delivered ? 'delivered' : 'pending',
      nextRetryAt ?? new Date(),
    ]);
  });
}

let running = false;
let again = false;
let stopped = false;

async function loop() {
  do {
    again = false;
    let claimed: Claimed[];
    try {
      claimed = await claimDue();
    } catch (err) {
      if (!stopped) console.error('baseline claim failed', err);
      return;
    }
    if (claimed.length === 0) continue;
    again = true;
    // Same delivery rule as the project: one endpoint's messages one at a time, in order;
    // different endpoints in parallel (up to CONCURRENCY).
    const byEndpoint = new Map<string, typeof claimed>();
    for (const m of claimed) byEndpoint.set(m.endpointId, [...(byEndpoint.get(m.endpointId) ?? []), m]);
    const groups = [...byEndpoint.values()];
    const lane = async () => {
      for (let group = groups.shift(); group && !stopped; group = groups.shift()) {
        for (const m of group) {
          const outcome = await send(m);
          await recordAttempt(m, outcome).catch((err) => console.error('baseline attempt not recorded', err));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, groups.length) }, lane));
  } while (again && !stopped);
}

function kick() {
  if (stopped) return;
  if (running) {
    again = true;
    return;
  }
  running = true;
  void loop().finally(() => {
    running = false;
  });
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
  setTimeout(() => process.exit(1), 5_000).unref();
  await listener.end().catch(() => {});
  await pool.end().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
