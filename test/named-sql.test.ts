import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { generateOnScratchDatabase } from '../src/db/sql/generate-cli.ts';
import { KINDS, readNamedSql } from '../src/db/sql/generate.ts';
import * as platformStatements from '../src/db/sql/generated/platform.ts';
import * as tenantStatements from '../src/db/sql/generated/tenant.ts';
import { platformSql, type NamedStatement, type PlatformStatement, type TenantStatement } from '../src/db/sql/named-sql.ts';
import { tenantDbFactory, type TenantScope } from '../src/db/tenant-db.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { makeRow } from './support/rows.ts';

/*
 * The named SQL files and their generated types (src/db/sql): the generated modules are what
 * `npm run sql:generate` makes of the files today, on a database with today's migrations; and
 * on both engines every statement returns exactly the columns it declares, each value of its
 * declared type (a Date is a Date, an int8 a string, not BigInt; null only where declared).
 */

const SERVER_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

describe('generated types of the named SQL files', () => {
  it('are what the files and the current migrations make: run npm run sql:generate when this fails', async () => {
    const modules = await generateOnScratchDatabase(SERVER_URL);
    expect(modules.size).toBe(KINDS.length);
    for (const [file, content] of modules) expect(await readFile(file, 'utf8'), path.basename(file)).toBe(content);
  });

  it('export one statement per file', async () => {
    for (const [kind, exported] of [['tenant', tenantStatements], ['platform', platformStatements]] as const) {
      const files = await readNamedSql(kind);
      const statements = Object.values(exported) as NamedStatement<unknown, unknown>[];
      expect(statements.map((s) => s.file).sort()).toEqual(files.map((f) => f.file).sort());
      expect(statements.every((s) => s.kind === kind)).toBe(true);
    }
  });
});

describe('platform statements', () => {
  it('are out of the domain’s reach: no file of src/domain imports them or the platform accessor', async () => {
    const files = (await readdir('src/domain', { recursive: true })).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = await readFile(path.join('src/domain', file), 'utf8');
      expect(text, file).not.toMatch(/sql\/generated\/platform|platformSql|platformStatement/);
    }
  });
});

const hour = 3_600_000;
const period = () => ({ from: new Date(Date.now() - 48 * hour), to: new Date(Date.now() + 48 * hour), timezone: 'Europe/Berlin', grouping: 'day' });

/** Parameters for each statement; one added without parameters here fails the test below. */
const TENANT_PARAMS: Record<keyof typeof tenantStatements, object> = {
  bookingsBuckets: { ...period(), currency: 'usd' },
  disputesBuckets: period(),
  reportDefaultPeriod: { end: new Date(), roundUp: true, timezone: 'Europe/Berlin', days: 30 },
  revenueBuckets: { ...period(), currency: 'usd' },
  timeZoneKnown: { name: 'Europe/Berlin' },
  utilizationBuckets: period(),
  utilizationVehicles: { from: new Date(Date.now() - 48 * hour), to: new Date(Date.now() + 48 * hour) },
};
const PLATFORM_PARAMS: Record<keyof typeof platformStatements, object> = {
  claimEvents: {},
  claimWebhookMessages: { now: new Date(Date.now() + 1_000), heldMessageIds: [], fullEndpointIds: [], lookAhead: 100, heldEndpointIds: [], heldCounts: [], perEndpoint: 5, limit: 25, leaseUntil: new Date(Date.now() + 60_000) },
  // Retention with a cut-off before every row: the count row alone, nothing deleted.
  deleteExpiredAuditRecords: { before: new Date(0), limit: 10, from: new Date(0) },
  deleteExpiredEvents: { before: new Date(0), limit: 10, after: new Date(0), afterId: '' },
  deleteExpiredWebhookMessages: { before: new Date(0), limit: 10, state: 'delivered', from: new Date(0) },
  // An event of no one's: the count row alone, nothing queued.
  queueEventMessages: { eventId: 'evt_none', businessId: 'biz_none', livemode: false, onlyEndpointId: null, appScopes: ['bookings:read'], appId: null, idPrefix: 'whm_none' },
};

/** Whether `value` is of the declared runtime type (`Date`, `string?`, ...). */
function ofDeclaredType(value: unknown, declared: string): boolean {
  const nullable = declared.endsWith('?');
  const tag = nullable ? declared.slice(0, -1) : declared;
  if (value === null) return nullable;
  if (tag === 'Date') return value instanceof Date && !Number.isNaN(value.getTime());
  if (tag === 'array') return Array.isArray(value);
  if (tag === 'json') return value !== undefined;
  return typeof value === tag;
}

function expectDeclared(statement: NamedStatement<unknown, unknown>, rows: unknown[]) {
  expect(rows.length, `${statement.file} returned no row to check`).toBeGreaterThan(0);
  for (const row of rows as Record<string, unknown>[]) {
    expect(Object.keys(row).sort(), statement.file).toEqual(Object.keys(statement.columns).sort());
    for (const [column, declared] of Object.entries(statement.columns)) {
      const value = row[column];
      expect(ofDeclaredType(value, declared), `${statement.file} ${column}: declared ${declared}, got ${value === null ? 'null' : typeof value === 'object' ? value?.constructor?.name : typeof value}`).toBe(true);
    }
  }
}

describe.each(ENGINES)('named SQL on %s returns what its types declare', (engine) => {
  let db: Database;
  let drop: (() => Promise<void>) | undefined;
  let scope: TenantScope;

  beforeAll(async () => {
    const pg = engine === 'postgres' ? await createTestPostgresDatabase() : null;
    drop = pg?.drop;
    db = await openDatabase(pg ? { databaseUrl: pg.url } : { dataDir: 'memory://' });
    scope = { businessId: (await createBusiness(db.prisma, { name: 'Types' })).business_id, livemode: false };
    // Rows for every statement to return: a due message (with its event and endpoint), an unpublished event, a booking.
    await makeRow(db, 'WebhookMessage', scope, { t: Date.now() - 10 * hour });
    await makeRow(db, 'Event', scope);
    await makeRow(db, 'Booking', scope);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it.each(Object.keys(tenantStatements))('%s (through the tenant scope)', async (name) => {
    const statement = (tenantStatements as Record<string, TenantStatement<object, unknown>>)[name];
    const params = (TENANT_PARAMS as Record<string, object>)[name];
    expect(params, `give ${name} parameters in TENANT_PARAMS`).toBeDefined();
    expectDeclared(statement, await tenantDbFactory(db.prisma)(scope).$run(statement, params));
  });

  it.each(Object.keys(platformStatements))('%s (through the platform accessor)', async (name) => {
    const statement = (platformStatements as Record<string, PlatformStatement<object, unknown>>)[name];
    const params = (PLATFORM_PARAMS as Record<string, object>)[name];
    expect(params, `give ${name} parameters in PLATFORM_PARAMS`).toBeDefined();
    expectDeclared(statement, await platformSql(db).run(statement, params));
  });
});
