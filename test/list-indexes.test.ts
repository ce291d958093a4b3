// Every list read, the outbox claims and the retention deletes are served by an index, never
// by reading a whole big table: on PostgreSQL holding a platform's year in miniature (200
// businesses, 20,000 bookings, 200,000 each of events, webhook messages, delivery attempts
// and audit records, analyzed), each statement the service sends for them, with its own
// values, is EXPLAINed under PostgreSQL's default planner settings. The statements are the
// real ones: caught on their way to PostgreSQL while the REST routes answer over HTTP, the
// export and the sweeps run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPlatform } from '../bench/growth-data.ts';
import type { Database } from '../src/db/database.ts';
import { claimEvents, claimWebhookMessages, deleteExpiredAuditRecords, deleteExpiredEvents, deleteExpiredWebhookMessages } from '../src/db/sql/generated/platform.ts';
import { valuesOf, type NamedStatement } from '../src/db/sql/named-sql.ts';
import { tenantDbFactory } from '../src/db/tenant-db.ts';
import { sweepIdempotencyRecords } from '../src/http/idempotency.ts';
import { exportAuditRecords } from '../src/platform/audit-export.ts';
import { startTestApp, type TestApp } from './support/app.ts';

const BIG_TABLES = ['Booking', 'Event', 'WebhookMessage', 'WebhookDelivery', 'AuditLog', 'IdempotencyRecord'];
const DAY = 86_400_000;

interface Statement {
  text: string;
  values: unknown[];
}

/** Statements sent to PostgreSQL by this process while `fn` runs (every pg client: the pool Prisma's adapter uses, and the direct SQL). */
async function caught(fn: () => Promise<unknown>): Promise<Statement[]> {
  const seen: Statement[] = [];
  const query = pg.Client.prototype.query;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args as [string | { text?: string; values?: unknown[] }, unknown];
    if (typeof first === 'string') seen.push({ text: first, values: Array.isArray(second) ? second : [] });
    else if (first && typeof first.text === 'string') seen.push({ text: first.text, values: first.values ?? [] });
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  };
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = query;
  }
  return seen;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The big tables a statement reads (FROM, JOIN, UPDATE, DELETE). */
const bigTablesOf = (text: string) => BIG_TABLES.filter((t) => new RegExp(`(FROM|JOIN|UPDATE|INTO)\\s+("public"\\.)?"${t}"`).test(text));

describe('every list read, outbox claim and retention delete is served by an index (PostgreSQL)', () => {
  let t: TestApp;
  let explainer: pg.Client;
  let businessId: string;
  const now = new Date();

  beforeAll(async () => {
    t = await startTestApp('postgres', { retention: { eventDays: 30, webhookDeliveryDays: 30, auditDays: 365, batchSize: 1_000, maxBatches: 100, sweepMs: 0 } });
    businessId = t.business.business_id;
    const url = (t.db as Database & { pool: pg.Pool }).pool.options.connectionString!;
    await seedPlatform(url, businessId, { businesses: 200, vehiclesPerBusiness: 10, customersPerBusiness: 40, bookings: 20_000, days: 370 }, now);
    // Spent idempotency keys, half of them past their 24 hours.
    await t.db.prisma.$executeRawUnsafe(
      `INSERT INTO "IdempotencyRecord" ("businessId", livemode, key, method, path, "bodyHash", state, "requestId", "responseStatus", "createdAt", "expiresAt")
       SELECT $1, false, 'key-' || g, 'POST', '/v1/bookings', 'hash', 'completed', 'req_' || g, 201, now() - (g % 48) * interval '1 hour', now() - (g % 48) * interval '1 hour' + interval '24 hours'
         FROM generate_series(1, 50000) g`,
      businessId,
    );
    explainer = new pg.Client({ connectionString: url });
    await explainer.connect();
    await explainer.query('ANALYZE "IdempotencyRecord"');
  }, 600_000);
  afterAll(async () => {
    await explainer?.end();
    await t?.close();
  });

  /** The plan PostgreSQL chooses for a statement, with its values. */
  async function plan(s: Statement): Promise<PlanNode[]> {
    const { rows } = await explainer.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({ text: `EXPLAIN (FORMAT JSON) ${s.text}`, values: s.values });
    return nodes(rows[0]['QUERY PLAN'][0].Plan);
  }

  /**
   * Each statement on a big table: no sequential scan of a big table, and an index of `table`
   * used; with `served`, the index is searched by that column (the filter narrows the index
   * scan, rather than being checked on every row of the tenant the scan reads); `ordered`: the
   * rows come in the page's order from the index, so the scan stops at the page's end (no sort
   * of every row that matches).
   */
  async function expectIndexed(what: string, statements: Statement[], table: string, served?: string, ordered = false) {
    const relevant = statements.filter((s) => bigTablesOf(s.text).length > 0);
    expect(relevant.some((s) => bigTablesOf(s.text).includes(table)), `${what}: no statement on "${table}" was sent`).toBe(true);
    for (const s of relevant) {
      const planned = await plan(s);
      const shown = () => `${what}\n${s.text}\n${JSON.stringify(s.values)}\n${planned.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''} ${n['Index Cond'] ?? ''}`).join('\n')}`;
      const seqScans = planned.filter((n) => n['Node Type'] === 'Seq Scan' && BIG_TABLES.includes(n['Relation Name'] ?? ''));
      expect(seqScans, shown()).toEqual([]);
      if (bigTablesOf(s.text).includes(table)) {
        // A bitmap heap scan is fed by index scans (which name no table themselves).
        expect(planned.some((n) => /Index|Bitmap Heap/.test(n['Node Type']) && n['Relation Name'] === table), shown()).toBe(true);
        const searched = (n: PlanNode) => served !== undefined && new RegExp(`(^|[^\\w"])"?${served}"? (=|<|>)`).test(n['Index Cond'] ?? '');
        if (served) expect(planned.some((n) => n['Index Name']?.startsWith(`${table}_`) && searched(n)), shown()).toBe(true);
        if (ordered) expect(planned.filter((n) => /Sort/.test(n['Node Type'])), shown()).toEqual([]);
      }
    }
  }

  const get = async (pathAndQuery: string) => {
    const statements = await caught(async () => {
      const res = await fetch(t.baseUrl + pathAndQuery, { headers: { authorization: `Bearer ${t.business.test_secret_key}` } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${pathAndQuery}: ${res.status} ${body}`);
    });
    // The server's own background work (the relay's and the workers' claims) may fall within
    // a request: checked in their own test below, not as the request's.
    return statements.filter((s) => s.text !== claimEvents.text && s.text !== claimWebhookMessages.text);
  };
  const iso = (daysAgo: number) => encodeURIComponent(new Date(now.getTime() - daysAgo * DAY).toISOString());
  // The tenant is business 0 of the generated data: booking j is its own when j % 200 = 0.
  const booking = 'bk_' + String(19_000).padStart(23, '0');
  const vehicle = 'veh_' + String(3 * 200).padStart(22, '0');
  const customer = 'cus_' + String(7 * 200).padStart(22, '0');
  const endpoint = 'we_' + '0'.repeat(23);
  const event = 'evt_' + String(190_003).padStart(22, '0');

  // Each list, the column its index is searched by, and whether the index gives the page's
  // order (a list whose matches grow without bound: its pages must not sort them all).
  const EVENT_LISTS: Record<string, [string, string, boolean?]> = {
    'no filter': ['/v1/events', 'businessId', true],
    type: ['/v1/events?type=rental.started', 'type', true],
    booking_id: [`/v1/events?booking_id=${booking}`, 'bookingId'],
    created_after: [`/v1/events?created_after=${iso(1)}`, 'createdAt'],
    // Newest first from the tenant's newest, to the first one before the time: the planner's
    // choice (the index of ids); within the retention period these are few.
    created_before: [`/v1/events?created_before=${iso(20)}`, 'businessId'],
    'created_after and created_before': [`/v1/events?created_after=${iso(21)}&created_before=${iso(20)}`, 'createdAt'],
    'type and created_after': [`/v1/events?type=booking.created&created_after=${iso(3)}`, 'businessId'],
  };
  it.each(Object.entries(EVENT_LISTS))('GET /v1/events, %s', async (_, [url, served, ordered]) => {
    await expectIndexed(url, await get(url), 'Event', served, ordered);
  });

  const BOOKING_LISTS: Record<string, [string, string, boolean?]> = {
    'no filter': ['/v1/bookings', 'businessId', true],
    'state (common)': ['/v1/bookings?state=completed', 'state', true],
    'state (rare)': ['/v1/bookings?state=active', 'state'],
    // Ten bookings a vehicle here, fewer than a page: PostgreSQL rightly sorts them. With a
    // year's forty it reads Booking_vehicleId_id_idx in order (bench/README.md, a year of data).
    vehicle_id: [`/v1/bookings?vehicle_id=${vehicle}`, 'vehicleId'],
    customer_id: [`/v1/bookings?customer_id=${customer}`, 'customerId'],
    'start_at[gte] and start_at[lt]': [`/v1/bookings?start_at[gte]=${iso(100)}&start_at[lt]=${iso(93)}`, 'startAt'],
    'start_at[gte]': [`/v1/bookings?start_at[gte]=${iso(-3)}`, 'startAt'],
    'created[gte] and created[lt]': [`/v1/bookings?created[gte]=${iso(100)}&created[lt]=${iso(93)}`, 'createdAt'],
    'created[lt]': [`/v1/bookings?created[lt]=${iso(300)}`, 'businessId'],
    'state and start_at[gte]': [`/v1/bookings?state=confirmed&start_at[gte]=${iso(0)}`, 'state'],
    "a customer's bookings": [`/v1/customers/${customer}/bookings`, 'customerId'],
  };
  it.each(Object.entries(BOOKING_LISTS))('GET /v1/bookings, %s', async (_, [url, served, ordered]) => {
    await expectIndexed(url, await get(url), 'Booking', served, ordered);
  });

  it('webhook delivery attempts of an endpoint, and of one event', async () => {
    await expectIndexed('deliveries', await get(`/v1/developers/webhooks/${endpoint}/deliveries`), 'WebhookDelivery', 'endpointId', true);
    await expectIndexed('deliveries of an event', await get(`/v1/developers/webhooks/${endpoint}/deliveries?event_id=${event}`), 'WebhookDelivery');
  });

  it("audit records: a booking's timeline (with its events and attempts), and the export", async () => {
    const timeline = await get(`/v1/bookings/${booking}/timeline`);
    await expectIndexed('timeline', timeline, 'AuditLog');
    await expectIndexed('timeline', timeline, 'Event');
    await expectIndexed('timeline', timeline, 'WebhookDelivery');
    const dir = await mkdtemp(path.join(tmpdir(), 'list-indexes-'));
    try {
      const db = tenantDbFactory(t.db.prisma)({ businessId, livemode: false });
      const exported = await caught(() => exportAuditRecords(db, { since: new Date(now.getTime() - 200 * DAY), before: new Date(now.getTime() - 100 * DAY) }, path.join(dir, 'a.jsonl')));
      await expectIndexed('audit export', exported, 'AuditLog');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  const named = (statement: NamedStatement<unknown, unknown>, params: object): Statement => ({ text: statement.text, values: valuesOf(statement, params) });

  it('the outbox claims: the relay (unpublished events) and the webhook workers (due messages)', async () => {
    await expectIndexed('relay claim', [named(claimEvents, {})], 'Event');
    const claim = named(claimWebhookMessages, { now, heldMessageIds: [], fullEndpointIds: [], lookAhead: 100, heldEndpointIds: [], heldCounts: [], perEndpoint: 5, limit: 25, leaseUntil: new Date(now.getTime() + 60_000) });
    await expectIndexed('webhook claim', [claim], 'WebhookMessage');
  });

  it('the retention deletes, and the sweep of spent idempotency keys', async () => {
    const limit = 1_000;
    const month = new Date(now.getTime() - 30 * DAY);
    // Where the previous batch stopped: the index is searched from there, not from its oldest entry.
    const from = new Date(now.getTime() - 200 * DAY);
    /** The statement's index scan of `table` starts at `column` >= the previous batch's end. */
    const startsFrom = async (what: string, s: Statement, table: string, column: string) => {
      const planned = await plan(s);
      const scan = planned.find((n) => n['Relation Name'] === table && n['Index Name']?.startsWith(`${table}_`));
      expect(scan?.['Index Cond'] ?? '', what).toMatch(new RegExp(`"${column}" >= `));
    };
    for (const state of ['delivered', 'failed']) {
      const statement = named(deleteExpiredWebhookMessages, { before: month, limit, state, from });
      await expectIndexed(`retention of ${state} messages`, [statement], 'WebhookMessage');
      await expectIndexed(`retention of ${state} messages`, [statement], 'WebhookDelivery');
      await startsFrom(`retention of ${state} messages`, statement, 'WebhookMessage', 'nextAttemptAt');
    }
    await expectIndexed('retention of events', [named(deleteExpiredEvents, { before: month, limit, after: from, afterId: '' })], 'Event');
    const audit = named(deleteExpiredAuditRecords, { before: new Date(now.getTime() - 365 * DAY), limit, from: new Date(now.getTime() - 400 * DAY) });
    await expectIndexed('retention of audit records', [audit], 'AuditLog');
    await startsFrom('retention of audit records', audit, 'AuditLog', 'createdAt');
    // Captured as sent (the sweep deletes nothing with a cut-off before every key), explained with the real cut-off.
    const [sweep] = (await caught(() => sweepIdempotencyRecords(t.db.prisma, new Date(0)))).filter((s) => s.text.includes('IdempotencyRecord'));
    await expectIndexed('idempotency sweep', [{ text: sweep.text, values: [now, ...sweep.values.slice(1)] }], 'IdempotencyRecord');
  });
});
