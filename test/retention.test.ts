// Retention (docs/retention.md): what a pass deletes and what it keeps, in bounded batches, on
// both engines; on PostgreSQL, passes that skip rows another transaction holds instead of
// waiting for them, two `npm run worker` processes sharing the work, and the pass run by a
// server's own maintenance.
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { platformSql } from '../src/db/sql/named-sql.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { DEFAULT_RETENTION, type RetentionPolicy } from '../src/jobs/retention-policy.ts';
import { newRetentionCursor, runRetentionPass } from '../src/jobs/retention.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES, startTestApp, type TestApp } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { spawnTs, type Child } from './support/processes.ts';

const DAY = 86_400_000;
const POLICY: RetentionPolicy = { ...DEFAULT_RETENTION, batchSize: 1_000, maxBatches: 1_000 };

type Scope = { businessId: string; livemode: boolean };

/**
 * An event `ageDays` old (published unless told otherwise), with a message of `state` to a new
 * endpoint when given: in one transaction, as the service writes them (a server's own pass
 * runs beside some tests).
 */
async function makeEvent(db: Database, scope: Scope, now: Date, e: { ageDays: number; published?: boolean; message?: { state: 'pending' | 'delivered' | 'failed'; finishedDaysAgo?: number; attempts?: number } }) {
  const createdAt = new Date(now.getTime() - e.ageDays * DAY);
  const endpoint = e.message
    ? await db.prisma.webhookEndpoint.create({ data: { id: newId('webhookEndpoint'), ...scope, url: 'https://example.com/hook', enabledEvents: ['*'], secret: 'whsec_test' } })
    : null;
  return db.prisma.$transaction(async (tx) => {
    const event = await tx.event.create({
      data: { id: newId('event'), ...scope, type: 'booking.created', data: { object: { object: 'booking' } }, createdAt, publishedAt: e.published === false ? null : new Date(createdAt.getTime() + 100) },
    });
    if (!e.message || !endpoint) return { event, message: null };
    const finished = new Date(now.getTime() - (e.message.finishedDaysAgo ?? e.ageDays) * DAY);
    const message = await tx.webhookMessage.create({
      data: {
        id: newId('webhookMessage'), ...scope, endpointId: endpoint.id, eventId: event.id, eventType: event.type, state: e.message.state,
        attempts: e.message.attempts ?? 1, createdAt, nextAttemptAt: e.message.state === 'pending' ? new Date(now.getTime() + 3_600_000) : finished,
      },
    });
    for (let attempt = 1; attempt <= (e.message.attempts ?? 1); attempt++) {
      await tx.webhookDelivery.create({
        data: {
          id: newId('webhookDelivery'), ...scope, messageId: message.id, endpointId: endpoint.id, eventId: event.id, eventType: event.type, url: endpoint.url,
          attempt, responseStatus: e.message.state === 'delivered' && attempt === e.message.attempts ? 200 : 500, durationMs: 12, createdAt: new Date(createdAt.getTime() + attempt * 1000),
        },
      });
    }
    return { event, message };
  });
}

async function makeAudit(db: Database, scope: Scope, now: Date, ageDays: number) {
  return db.prisma.auditLog.create({
    data: { id: newId('audit'), ...scope, requestId: newId('request'), method: 'POST', path: '/v1/bookings', operation: 'createBooking', status: 201, createdAt: new Date(now.getTime() - ageDays * DAY) },
  });
}

async function remaining(db: Database, scope: Scope) {
  const [events, messages, deliveries, audit] = await Promise.all([
    db.prisma.event.findMany({ where: scope, select: { id: true } }),
    db.prisma.webhookMessage.findMany({ where: scope, select: { id: true } }),
    db.prisma.webhookDelivery.findMany({ where: scope, select: { id: true } }),
    db.prisma.auditLog.findMany({ where: scope, select: { id: true } }),
  ]);
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();
  return { events: ids(events), messages: ids(messages), deliveries: ids(deliveries), audit: ids(audit) };
}

describe.each(ENGINES)('retention on %s', (engine) => {
  let db: Database;
  let drop: (() => Promise<void>) | undefined;
  let scope: Scope;
  const now = new Date();

  beforeAll(async () => {
    const pgDb = engine === 'postgres' ? await createTestPostgresDatabase() : null;
    drop = pgDb?.drop;
    db = await openDatabase(pgDb ? { databaseUrl: pgDb.url } : { dataDir: 'memory://' });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });
  // A pass works across businesses: each test starts with none of these rows.
  beforeEach(async () => {
    await db.prisma.webhookDelivery.deleteMany({});
    await db.prisma.webhookMessage.deleteMany({});
    await db.prisma.event.deleteMany({});
    await db.prisma.auditLog.deleteMany({});
  });
  const freshScope = async () => ({ businessId: (await createBusiness(db.prisma, { name: 'Retention Rentals' })).business_id, livemode: false });
  const pass = (policy: Partial<RetentionPolicy> = {}) => runRetentionPass(platformSql(db), { ...POLICY, ...policy }, now);

  it('the tables it deletes from are vacuumed once 1% of their rows are dead, not the default 20%', async () => {
    const rows = await db.prisma.$queryRaw<{ relname: string; reloptions: string[] | null }[]>`
      SELECT relname, reloptions FROM pg_class WHERE relkind = 'r' AND relname IN ('Event', 'WebhookMessage', 'WebhookDelivery', 'AuditLog', 'IdempotencyRecord') ORDER BY relname`;
    expect(rows.map((r) => r.relname)).toEqual(['AuditLog', 'Event', 'IdempotencyRecord', 'WebhookDelivery', 'WebhookMessage']);
    for (const row of rows) expect(row.reloptions, row.relname).toEqual(expect.arrayContaining(['autovacuum_vacuum_scale_factor=0.01', 'autovacuum_vacuum_threshold=10000']));
  });

  it('deletes what is past its period and keeps undelivered, unpublished and recent records', async () => {
    scope = await freshScope();
    const delivered = await makeEvent(db, scope, now, { ageDays: 40, message: { state: 'delivered', attempts: 2 } });
    const failed = await makeEvent(db, scope, now, { ageDays: 40, message: { state: 'failed', finishedDaysAgo: 35, attempts: 3 } });
    const noEndpoint = await makeEvent(db, scope, now, { ageDays: 31 });
    const unpublished = await makeEvent(db, scope, now, { ageDays: 40, published: false });
    const stillDelivering = await makeEvent(db, scope, now, { ageDays: 40, message: { state: 'pending', attempts: 2 } });
    const retriedLately = await makeEvent(db, scope, now, { ageDays: 40, message: { state: 'delivered', finishedDaysAgo: 10 } });
    const recent = await makeEvent(db, scope, now, { ageDays: 29, message: { state: 'delivered' } });
    const oldAudit = await makeAudit(db, scope, now, 366);
    const keptAudit = [await makeAudit(db, scope, now, 364), await makeAudit(db, scope, now, 0)];
    const before = await remaining(db, scope);

    const counts = await pass();

    expect(counts).toMatchObject({ webhookMessages: 2, webhookDeliveries: 5, events: 3, auditRecords: 1 });
    const after = await remaining(db, scope);
    const gone = (kind: keyof typeof before) => before[kind].filter((id) => !after[kind].includes(id)).sort();
    expect(gone('events')).toEqual([delivered.event.id, failed.event.id, noEndpoint.event.id].sort());
    expect(after.events).toEqual([unpublished.event.id, stillDelivering.event.id, retriedLately.event.id, recent.event.id].sort());
    expect(after.messages).toEqual([stillDelivering.message!.id, retriedLately.message!.id, recent.message!.id].sort());
    expect(after.deliveries).toHaveLength(2 + 1 + 1); // the pending message's two attempts, and one each of the two kept
    expect(gone('audit')).toEqual([oldAudit.id]);
    expect(after.audit).toEqual(keptAudit.map((a) => a.id).sort());

    // Nothing more is past its period: a second pass deletes nothing.
    expect(await pass()).toMatchObject({ webhookMessages: 0, webhookDeliveries: 0, events: 0, auditRecords: 0 });
  });

  it('an event stays while a delivery of it does: the longer period keeps both', async () => {
    scope = await freshScope();
    const e = await makeEvent(db, scope, now, { ageDays: 45, message: { state: 'delivered' } });
    expect(await pass({ eventDays: 30, webhookDeliveryDays: 60 })).toMatchObject({ events: 0, webhookMessages: 0 });
    expect((await remaining(db, scope)).events).toEqual([e.event.id]);
    expect(await pass({ eventDays: 60, webhookDeliveryDays: 30 })).toMatchObject({ events: 0, webhookMessages: 1 });
    expect((await remaining(db, scope)).events).toEqual([e.event.id]);
    expect(await pass({ eventDays: 40, webhookDeliveryDays: 30 })).toMatchObject({ events: 1 });
  });

  it('a period of 0 keeps records forever', async () => {
    scope = await freshScope();
    await makeEvent(db, scope, now, { ageDays: 4000, message: { state: 'delivered' } });
    await makeAudit(db, scope, now, 4000);
    expect(await pass({ eventDays: 0, webhookDeliveryDays: 0, auditDays: 0 })).toEqual({ webhookMessages: 0, webhookDeliveries: 0, events: 0, auditRecords: 0, batches: 0 });
    // Deliveries kept forever keep their events too, whatever the events' own period.
    expect(await pass({ eventDays: 30, webhookDeliveryDays: 0, auditDays: 0 })).toMatchObject({ events: 0, batches: 0 });
    expect((await remaining(db, scope)).events).toHaveLength(1);
  });

  it('deletes in batches of at most the batch size, and at most maxBatches of them a pass', async () => {
    scope = await freshScope();
    for (let i = 0; i < 25; i++) await makeEvent(db, scope, now, { ageDays: 31 + i });
    const counts = [];
    for (let i = 0; i < 4; i++) counts.push((await pass({ batchSize: 10, maxBatches: 1, auditDays: 0, webhookDeliveryDays: 30 })).events);
    expect(counts).toEqual([10, 10, 5, 0]);
    for (let i = 0; i < 25; i++) await makeEvent(db, scope, now, { ageDays: 31 + i });
    // Batches until one comes back short: 10, 10, 5.
    expect(await pass({ batchSize: 10, maxBatches: 100, auditDays: 0 })).toMatchObject({ events: 25 });
    expect((await remaining(db, scope)).events).toEqual([]);
  });

  it("a process's passes go on from where the last batch stopped, and start from the oldest again once caught up", async () => {
    scope = await freshScope();
    const records = [];
    for (let age = 409; age >= 400; age--) records.push(await makeAudit(db, scope, now, age));
    const cursor = newRetentionCursor();
    const auditOnly = { batchSize: 3, maxBatches: 1, eventDays: 0, webhookDeliveryDays: 0 };
    const next = async () => (await runRetentionPass(platformSql(db), { ...POLICY, ...auditOnly }, now, cursor)).auditRecords;
    expect(await next()).toBe(3); // 409, 408 and 407 days old
    expect(cursor.auditRecords).toEqual(records[2].createdAt);
    // A record behind the cursor, as one another process held while this one passed it.
    const passedOver = await makeAudit(db, scope, now, 500);
    expect([await next(), await next()]).toEqual([3, 3]);
    expect((await remaining(db, scope)).audit).toEqual([passedOver.id, records[9].id].sort());
    expect(await next()).toBe(1); // the last one: a short batch, caught up
    expect(await next()).toBe(1); // from the oldest again
    expect((await remaining(db, scope)).audit).toEqual([]);
  });
});

describe('retention on PostgreSQL, beside other transactions and processes', () => {
  let pgDb: Awaited<ReturnType<typeof createTestPostgresDatabase>>;
  let db: Database;
  const children: Child[] = [];

  beforeAll(async () => {
    pgDb = await createTestPostgresDatabase();
    db = await openDatabase({ databaseUrl: pgDb.url });
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop('SIGKILL')));
    await db?.close();
    await pgDb?.drop();
  });

  /** `n` published events `ageDays` old of `businessId`, each with a delivered message and one attempt (SQL: thousands at once). */
  async function oldEvents(businessId: string, n: number, ageDays: number) {
    const endpoint = newId('webhookEndpoint');
    await db.prisma.webhookEndpoint.create({ data: { id: endpoint, businessId, livemode: false, url: 'https://example.com/hook', enabledEvents: ['*'], secret: 'whsec_test' } });
    const tag = newId('event');
    await db.prisma.$executeRawUnsafe(
      `WITH e AS (
         INSERT INTO "Event" (id, "businessId", livemode, type, data, "createdAt", "publishedAt")
         SELECT $1 || lpad(g::text, 8, '0'), $2, false, 'booking.created', '{}'::jsonb, now() - $3 * interval '1 day', now() - $3 * interval '1 day'
           FROM generate_series(1, $4::int) g RETURNING id, "createdAt"
       ), m AS (
         INSERT INTO "WebhookMessage" (id, "businessId", livemode, "endpointId", "eventId", "eventType", state, attempts, "nextAttemptAt", "createdAt", "updatedAt")
         SELECT 'whm' || substr(e.id, 4), $2, false, $5, e.id, 'booking.created', 'delivered', 1, e."createdAt", e."createdAt", e."createdAt" FROM e RETURNING id, "eventId", "createdAt"
       )
       INSERT INTO "WebhookDelivery" (id, "businessId", livemode, "messageId", "endpointId", "eventId", "eventType", url, attempt, "responseStatus", "durationMs", "createdAt")
       SELECT 'wd' || substr(m.id, 4), $2, false, m.id, $5, m."eventId", 'booking.created', 'https://example.com/hook', 1, 200, 10, m."createdAt" FROM m`,
      tag, businessId, ageDays, n, endpoint,
    );
  }

  it('skips the rows another transaction holds instead of waiting for them, and takes them on a later pass', async () => {
    const businessId = (await createBusiness(db.prisma, { name: 'Locked Rentals' })).business_id;
    await oldEvents(businessId, 30, 40);
    const audit = await Promise.all(Array.from({ length: 5 }, () => makeAudit(db, { businessId, livemode: false }, new Date(), 400)));
    // One process's passes, each going on from where the one before stopped.
    const cursor = newRetentionCursor();
    const holder = new pg.Client({ connectionString: pgDb.url });
    await holder.connect();
    try {
      // Another process in the middle of its own batch (or a worker recording an attempt): it holds some rows.
      await holder.query('BEGIN');
      const held = await holder.query<{ id: string }>(`SELECT id FROM "WebhookMessage" WHERE "businessId" = $1 ORDER BY id LIMIT 7 FOR UPDATE`, [businessId]);
      await holder.query(`SELECT id FROM "AuditLog" WHERE id = ANY($1) FOR UPDATE`, [audit.slice(0, 2).map((a) => a.id)]);
      const started = Date.now();
      const counts = await runRetentionPass(platformSql(db), { ...POLICY, batchSize: 4 }, new Date(), cursor);
      // Not blocked until the holder ends (it never ends while the pass runs).
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(counts).toMatchObject({ webhookMessages: 23, webhookDeliveries: 23, events: 23, auditRecords: 3 });
      const left = await db.prisma.webhookMessage.findMany({ where: { businessId }, select: { id: true } });
      expect(left.map((m) => m.id).sort()).toEqual(held.rows.map((r) => r.id).sort());
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    expect(await runRetentionPass(platformSql(db), POLICY, new Date(), cursor)).toMatchObject({ webhookMessages: 7, events: 7, auditRecords: 2 });
    expect(await db.prisma.event.count({ where: { businessId } })).toBe(0);
  });

  it('two worker processes side by side delete everything past its period once, without errors', async () => {
    const businessId = (await createBusiness(db.prisma, { name: 'Busy Rentals' })).business_id;
    // Whatever earlier tests left past its period counts too (the workers take it), measured before they start.
    const month = () => new Date(Date.now() - 30 * DAY);
    const expiredMessages = { state: { not: 'pending' as const }, nextAttemptAt: { lt: month() } };
    const TOTAL = 6_000 + (await db.prisma.event.count({ where: { createdAt: { lt: month() } } }));
    const MESSAGES = 6_000 + (await db.prisma.webhookMessage.count({ where: expiredMessages }));
    const ATTEMPTS = 6_000 + (await db.prisma.webhookDelivery.count({ where: { message: expiredMessages } }));
    const env = { DATABASE_URL: pgDb.url, LOG_LEVEL: 'info', HOLD_SWEEP_MS: '0', WEBHOOK_POLL_MS: '60000', RETENTION_SWEEP_MS: '200', RETENTION_BATCH_SIZE: '50', RETENTION_MAX_BATCHES: '100000' };
    const workers = await Promise.allSettled([spawnTs('src/worker.ts', env, /webhook worker/), spawnTs('src/worker.ts', env, /webhook worker/)]);
    for (const w of workers) if (w.status === 'fulfilled') children.push(w.value);
    for (const w of workers) if (w.status === 'rejected') throw w.reason;
    // Made once both run, so that their passes find the work at about the same time.
    await oldEvents(businessId, 6_000, 45);
    await oldEvents(businessId, 50, 5); // recent: kept
    const deadline = Date.now() + 90_000;
    while ((await db.prisma.event.count({ where: { businessId } })) > 50) {
      if (Date.now() > deadline) throw new Error(`still ${await db.prisma.event.count({ where: { businessId } })} events\n${children.map((c) => c.output()).join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await Promise.all(children.splice(0).map(async (c) => {
      await c.stop();
      children.push(c);
    }));
    const passes = children.map((c) =>
      c.output().split('\n').filter((l) => l.includes('"job":"retention"')).map((l) => JSON.parse(l) as { level: number | string; events: number; webhookMessages: number; webhookDeliveries: number }),
    );
    const all = passes.flat();
    // Side by side: each took a share (120 batches of 50, passes every 200 ms in both).
    for (const own of passes) expect(own.reduce((n, p) => n + p.events, 0)).toBeGreaterThan(0);
    // Every row deleted exactly once between them (a row counted by both would push a sum past TOTAL).
    expect(all.reduce((n, p) => n + p.events, 0)).toBe(TOTAL);
    expect(all.reduce((n, p) => n + p.webhookMessages, 0)).toBe(MESSAGES);
    expect(all.reduce((n, p) => n + p.webhookDeliveries, 0)).toBe(ATTEMPTS);
    for (const c of children) expect(c.output()).not.toMatch(/retention failed|deadlock|could not serialize/i);
    expect(await db.prisma.event.count({ where: { businessId } })).toBe(50);
    expect(await db.prisma.webhookDelivery.count({ where: { businessId } })).toBe(50);
  }, 150_000);
});

describe.each(ENGINES)('the retention pass of a server on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { retention: { ...DEFAULT_RETENTION, sweepMs: 100 } });
  });
  afterAll(async () => t?.close());

  it('runs by itself in the maintenance jobs', async () => {
    const scope = { businessId: t.business.business_id, livemode: false };
    const now = new Date();
    const old = await makeEvent(t.db, scope, now, { ageDays: 31, message: { state: 'delivered' } });
    const fresh = await makeEvent(t.db, scope, now, { ageDays: 1 });
    await makeAudit(t.db, scope, now, 400);
    const deadline = Date.now() + 20_000;
    while ((await t.db.prisma.event.count({ where: { id: old.event.id } })) + (await t.db.prisma.auditLog.count({ where: scope })) > 0) {
      if (Date.now() > deadline) throw new Error('the server never deleted the expired records');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await t.db.prisma.event.count({ where: { id: fresh.event.id } })).toBe(1);
  });
});
