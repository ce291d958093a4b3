import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { TENANT_MODELS, tenantDbFactory, TenantScopeViolation, type TenantScope } from '../src/db/tenant-db.ts';
import { Prisma } from '../src/generated/prisma/client.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { makeRow } from './support/rows.ts';

/*
 * The tenant scope's one way to SQL (`$readScoped`, used by the reports): whatever the
 * statement, the tables it names hold only the caller's business and environment; Prisma's
 * raw SQL is not reachable through the scope at all; and what could step around the shadowing
 * (a write, a second statement, a table named through its schema, SQL run from text, a table
 * of no tenant) is refused before anything runs. Every tenant model is checked, read from the
 * schema, so one added later is covered too.
 */
describe.each(ENGINES)('scoped SQL reads on %s', (engine) => {
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
    const [{ n }] = await tenantDb(scope).$readScoped<{ n: number }>(Prisma.sql`SELECT COUNT(*)::int AS n FROM ${Prisma.raw(`"${model}"`)}`);
    return n;
  };
  const ownedBy = (scope: TenantScope, model: string) =>
    (db.prisma as unknown as Record<string, { count(args: object): Promise<number> }>)[model[0].toLowerCase() + model.slice(1)].count({
      where: TENANT_MODELS.get(model)!.environment ? { businessId: scope.businessId, livemode: scope.livemode } : { businessId: scope.businessId },
    });

  it.each([...TENANT_MODELS.keys()])('%s: a scoped read sees exactly the scope’s rows', async (model) => {
    await makeRow(db, model, a);
    const mine = await countOf(a, model);
    expect(mine).toBeGreaterThan(0); // so the refusals below can fail
    expect(mine).toBe(await ownedBy(a, model));
    const others = TENANT_MODELS.get(model)!.environment ? [b, { ...a, livemode: true }] : [b];
    for (const scope of others) expect(await countOf(scope, model)).toBe(await ownedBy(scope, model));
  });

  it('scopes every mention of a table, in subqueries and joins too, and the business to its own row', async () => {
    await makeRow(db, 'Booking', b);
    const [row] = await tenantDb(a).$readScoped<{ bookings: number; joined: number; businesses: number }>(Prisma.sql`
      SELECT (SELECT COUNT(*) FROM "Booking")::int AS bookings,
             (SELECT COUNT(*) FROM "Booking" x JOIN "Vehicle" v ON v."id" = x."vehicleId" WHERE x."id" IN (SELECT "id" FROM "Booking"))::int AS joined,
             (SELECT COUNT(*) FROM "Business")::int AS businesses`);
    expect(row).toEqual({ bookings: await ownedBy(a, 'Booking'), joined: await ownedBy(a, 'Booking'), businesses: 1 });
  });

  it.each([
    ['a write', Prisma.sql`DELETE FROM "Booking"`],
    ['a write after a SELECT-looking start', Prisma.sql`WITH x AS (DELETE FROM "Booking" RETURNING 1) SELECT 1`],
    ['a second statement', Prisma.sql`SELECT 1; DELETE FROM "Booking"`],
    ['a table through its schema', Prisma.sql`SELECT COUNT(*) FROM public."Booking"`],
    ['a table through a quoted schema', Prisma.sql`SELECT COUNT(*) FROM "public" . "Booking"`],
    ['a table behind a comment', Prisma.sql`SELECT COUNT(*) FROM public./**/"Booking"`],
    ['a table of no tenant', Prisma.sql`SELECT "value" FROM "PlatformSecret"`],
    ['SQL run from text', Prisma.sql`SELECT query_to_xml(${'SELECT * FROM public."Booking"'}, true, true, '')`],
    ['a setting changed', Prisma.sql`SELECT set_config('search_path', 'x', true)`],
  ])('refuses %s before it runs', async (_name, query) => {
    await expect(tenantDb(a).$readScoped(query)).rejects.toBeInstanceOf(TenantScopeViolation);
  });

  it("leaves Prisma's raw SQL out of the scope: it would reach every tenant", async () => {
    const scoped = tenantDb(a) as unknown as Record<string, unknown>;
    for (const method of ['$queryRaw', '$queryRawUnsafe', '$executeRaw', '$executeRawUnsafe']) {
      expect(() => scoped[method], method).toThrow(TenantScopeViolation);
    }
  });
});
