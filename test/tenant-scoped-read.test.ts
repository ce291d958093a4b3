import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { claimEvents } from '../src/db/sql/generated/platform.ts';
import { tenantStatement, type TenantStatement } from '../src/db/sql/named-sql.ts';
import { TENANT_MODELS, tenantDbFactory, TenantScopeViolation, type TenantScope } from '../src/db/tenant-db.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { makeRow } from './support/rows.ts';

/*
 * The tenant scope's one way to SQL: a named tenant statement run by `$run`. Whatever the
 * statement says, the tables it reads hold only the caller's business and environment (the
 * scope binds them; the statement's parameters cannot name them); Prisma's raw SQL is not
 * reachable through the scope at all; and what could step around the shadowing (a write, a
 * second statement, a table named through its schema, SQL run from text, a table of no tenant,
 * a WITH query's name used outside its scope) is refused before anything runs. Every tenant
 * model is checked, read from the schema, so one added later is covered too.
 */

/** A statement declared here as a file would be (the generated modules declare them the same way). */
const statement = <Row,>(text: string, params: string[] = []): TenantStatement<Record<string, unknown>, Row> =>
  tenantStatement({ name: 'probe', file: 'tenant/probe.sql', params, columns: {}, text });

describe.each(ENGINES)('named tenant SQL on %s', (engine) => {
  let db: Database;
  let drop: (() => Promise<void>) | undefined;
  let a: TenantScope;
  let b: TenantScope;
  let tenantDb: ReturnType<typeof tenantDbFactory>;

  beforeAll(async () => {
    const pg = engine === 'postgres' ? await createTestPostgresDatabase() : null;
    drop = pg?.drop;
    db = await openDatabase(pg ? { databaseUrl: pg.url } : { dataDir: 'memory://' });
    a = { businessId: (await createBusiness(db.prisma, { name: 'A' })).business_id, livemode: false };
    b = { businessId: (await createBusiness(db.prisma, { name: 'B' })).business_id, livemode: false };
    tenantDb = tenantDbFactory(db.prisma, undefined, { direct: db.direct });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  const countOf = async (scope: TenantScope, model: string) => {
    const [{ n }] = await tenantDb(scope).$run(statement<{ n: number }>(`SELECT COUNT(*)::int AS n FROM "${model}"`), {});
    return n;
  };
  const ownedBy = (scope: TenantScope, model: string) =>
    (db.prisma as unknown as Record<string, { count(args: object): Promise<number> }>)[model[0].toLowerCase() + model.slice(1)].count({
      where: TENANT_MODELS.get(model)!.environment ? { businessId: scope.businessId, livemode: scope.livemode } : { businessId: scope.businessId },
    });

  it.each([...TENANT_MODELS.keys()])('%s: a named statement sees exactly the scope’s rows', async (model) => {
    await makeRow(db, model, a);
    await makeRow(db, model, b);
    const mine = await countOf(a, model);
    expect(mine).toBeGreaterThan(0); // so the comparisons below can fail
    expect(mine).toBe(await ownedBy(a, model));
    const others = TENANT_MODELS.get(model)!.environment ? [b, { ...a, livemode: true }] : [b];
    for (const scope of others) expect(await countOf(scope, model)).toBe(await ownedBy(scope, model));
  });

  it('scopes every mention of a table, in subqueries, joins and its own WITH queries, and the business to its own row', async () => {
    await makeRow(db, 'Booking', b);
    const [row] = await tenantDb(a).$run(
      statement<{ bookings: number; joined: number; through_with: number; businesses: number }>(`
        WITH mine AS (SELECT "id" FROM "Booking")
        SELECT (SELECT COUNT(*) FROM "Booking")::int AS bookings,
               (SELECT COUNT(*) FROM "Booking" x JOIN "Vehicle" v ON v."id" = x."vehicleId" WHERE x."id" IN (SELECT "id" FROM "Booking"))::int AS joined,
               (SELECT COUNT(*) FROM mine)::int AS through_with,
               (SELECT COUNT(*) FROM "Business")::int AS businesses`),
      {},
    );
    const bookings = await ownedBy(a, 'Booking');
    expect(row).toEqual({ bookings, joined: bookings, through_with: bookings, businesses: 1 });
  });

  it("cannot name another tenant: a statement's own condition on the owner finds nothing", async () => {
    await makeRow(db, 'Booking', b);
    expect(await ownedBy(b, 'Booking')).toBeGreaterThan(0);
    const others = statement<{ n: number }>(`SELECT COUNT(*)::int AS n FROM "Booking" WHERE "businessId" = $1 AND "livemode" = $2`, ['business', 'livemode']);
    const [{ n }] = await tenantDb(a).$run(others, { business: b.businessId, livemode: b.livemode });
    expect(n).toBe(0);
  });

  it.each([
    ['a write', `DELETE FROM "Booking"`],
    ['a write inside a WITH query', `WITH x AS (DELETE FROM "Booking" RETURNING 1) SELECT 1`],
    ['a write after a comment', `-- SELECT\nUPDATE "Booking" SET "state" = 'canceled'`],
    ['a second statement', `SELECT 1; DELETE FROM "Booking"`],
    ['a row lock', `SELECT "id" FROM "Booking" FOR UPDATE`],
    ['SELECT INTO', `SELECT * INTO copied FROM "Booking"`],
    ['a table through its schema', `SELECT COUNT(*) FROM public."Booking"`],
    ['a table through a quoted schema and a comment', `SELECT COUNT(*) FROM "public" . /* x */ "Booking"`],
    ['a table of no tenant', `SELECT "value" FROM "PlatformSecret"`],
    ['the migrations table', `SELECT COUNT(*) FROM _prisma_migrations`],
    ['a WITH query used outside its scope', `SELECT (SELECT COUNT(*) FROM (WITH "PlatformSecret" AS (SELECT 1) SELECT * FROM "PlatformSecret") s), (SELECT COUNT(*) FROM "PlatformSecret")`],
    ['a WITH query reading one defined after it', `WITH x AS (SELECT * FROM y), y AS (SELECT 1 AS n) SELECT * FROM x`],
    ['a WITH query named like a table', `WITH "Booking" AS (SELECT 1 AS id) SELECT * FROM "Booking"`],
    ['WITH RECURSIVE', `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r`],
    ['SQL run from text', `SELECT query_to_xml('SELECT * FROM public."Booking"', true, true, '')`],
    ['a setting changed', `SELECT set_config('search_path', 'x', true)`],
    ['a setting read', `SELECT current_setting('search_path')`],
    ['a schema-qualified function', `SELECT public.gen_random_uuid()`],
    ['a catalog lookup by name', `SELECT 'public."Booking"'::regclass`],
    ['a file read', `SELECT pg_read_file('/etc/passwd')`],
  ])('refuses %s before it runs', async (_name, text) => {
    const before = await ownedBy(a, 'Booking');
    await expect(tenantDb(a).$run(statement(text), {})).rejects.toBeInstanceOf(TenantScopeViolation);
    expect(await ownedBy(a, 'Booking')).toBe(before);
  });

  it('runs tenant statements only: a platform statement is refused, and nothing is claimed', async () => {
    await makeRow(db, 'Event', a);
    const unpublished = () => db.prisma.event.count({ where: { publishedAt: null } });
    const before = await unpublished();
    expect(before).toBeGreaterThan(0);
    await expect(tenantDb(a).$run(claimEvents as never, {})).rejects.toBeInstanceOf(TenantScopeViolation);
    expect(await unpublished()).toBe(before);
  });

  it("leaves Prisma's raw SQL out of the scope: it would reach every tenant", async () => {
    const scoped = tenantDb(a) as unknown as Record<string, unknown>;
    for (const method of ['$queryRaw', '$queryRawUnsafe', '$executeRaw', '$executeRawUnsafe', '$queryRawTyped']) {
      expect(() => scoped[method], method).toThrow(TenantScopeViolation);
    }
  });
});
