import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { TENANT_MODELS, tenantDbFactory, TenantScopeViolation, type TenantScope } from '../src/db/tenant-db.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { delegate, keyOf, makeRow, unique } from './support/rows.ts';

/**
 * Domain code reaches tenant rows only through the tenant scope (src/db/tenant-db.ts). For
 * every model of schema.prisma that belongs to a business, a row of business A in the
 * sandbox is invisible and untouchable through B's scope and through A's live scope, and a
 * row claiming another owner cannot be written; through A's own sandbox scope it is found
 * (so the check can fail). The rows are made from the datamodel, so a model added later is
 * covered without new test code.
 */

describe('the tenant scope covers every tenant model of schema.prisma', () => {
  it('knows every model with a businessId, read from the schema file itself', async () => {
    const schema = await readFile(path.resolve(import.meta.dirname, '../prisma/schema.prisma'), 'utf8');
    const withBusiness = [...schema.matchAll(/model (\w+) \{([^}]*)\}/g)].filter(([, name, body]) => name !== 'Business' && /^\s+businessId\s/m.test(body)).map(([, name]) => name);
    expect([...TENANT_MODELS.keys()].sort()).toEqual(withBusiness.sort());
    expect(withBusiness.length).toBeGreaterThan(20);
  });

  it('leaves domain code no other way to tenant rows: no Prisma client, no database module, no raw SQL', async () => {
    const root = path.resolve(import.meta.dirname, '../src/domain');
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const offenders: string[] = [];
    for (const file of files) {
      const text = await readFile(path.join(root, file), 'utf8');
      if (/import (?!type)[^;]*\bPrismaClient\b|from '[./]+db\/database\.ts'|new PrismaClient/.test(text)) offenders.push(`${file}: reaches an unscoped client`);
      const raw = text.match(/\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe)\b[^;]*/g) ?? [];
      for (const call of raw) offenders.push(`${file}: raw SQL ${call.slice(0, 60)}`);
    }
    expect(offenders).toEqual([]);
  });
});

describe.each(ENGINES)('tenant scope on %s', (engine) => {
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
    // As the server runs it: on PostgreSQL, reads by id go straight to SQL, with the same scope.
    tenantDb = tenantDbFactory(db.prisma, undefined, { direct: db.direct });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it.each([...TENANT_MODELS.keys()])('%s of another business or environment can be neither read, changed, deleted nor written', async (model) => {
    const row = await makeRow(db, model, a);
    const key = keyOf(model, row);
    const before = await delegate(db.prisma, model).findUnique({ where: key });
    const scopes = TENANT_MODELS.get(model)!.environment ? [b, { ...a, livemode: true }] : [b];

    // Its own scope finds it, exactly as Prisma returns it: the refusals below are the scope's doing.
    expect(await delegate(tenantDb(a), model).findUnique({ where: key })).toStrictEqual(before);
    const some = { where: key, select: { id: true, businessId: true, createdAt: true } };
    if (key.id) expect(await delegate(tenantDb(a), model).findUnique(some)).toStrictEqual(await delegate(db.prisma, model).findUnique(some));

    for (const scope of scopes) {
      const foreign = delegate(tenantDb(scope), model);
      expect(await foreign.findUnique({ where: key })).toBeNull();
      expect(await foreign.findFirst({ where: key.id ? { id: key.id } : {} })).toBeNull();
      expect(await foreign.findMany({ where: key.id ? { id: key.id } : {} })).toEqual([]);
      expect(await foreign.count({ where: key.id ? { id: key.id } : {} })).toBe(0);
      expect(await foreign.updateMany({ where: key.id ? { id: key.id } : {}, data: {} })).toEqual({ count: 0 });
      await expect(foreign.update({ where: key, data: {} })).rejects.toMatchObject({ code: 'P2025' });
      await expect(foreign.delete({ where: key })).rejects.toMatchObject({ code: 'P2025' });
      expect(await foreign.deleteMany({ where: key.id ? { id: key.id } : {} })).toEqual({ count: 0 });
      // A row claiming the other tenant as its owner is refused before it reaches the database.
      const { id: _id, ...copy } = row;
      await expect(foreign.create({ data: { ...copy, ...(row.id ? { id: `${String(row.id)}_copy` } : { key: unique() }) } })).rejects.toBeInstanceOf(TenantScopeViolation);
    }
    expect(await delegate(db.prisma, model).findUnique({ where: key })).toEqual(before);
  });

  it.each([...TENANT_MODELS.keys()])('%s written through the scope, alone or in a transaction, is the row Prisma reads back', async (model) => {
    const scoped = tenantDb(a);
    const statements = () => db.direct?.statements ?? 0;
    const before = statements();
    const alone = await makeRow(db, model, a, undefined, scoped);
    const between = statements();
    const inTransaction = await scoped.$transaction((tx) => makeRow(db, model, a, undefined, tx));
    for (const row of [alone, inTransaction]) {
      expect(row).toStrictEqual(await delegate(db.prisma, model).findUnique({ where: keyOf(model, row) }));
    }
    // On PostgreSQL both went as the scope's own SQL (direct-sql.ts), not through the ORM.
    if (engine === 'postgres') expect([between > before, statements() > between]).toEqual([true, true]);
  });

  it("a transaction's direct writes and Prisma's share its connection: each sees the other's rows, and they roll back together", async () => {
    const scoped = tenantDb(a);
    const email = `${unique()}@example.com`;
    const failure = new Error('roll back');
    await expect(
      scoped.$transaction(async (tx) => {
        const customer = await tx.customer.create({ data: { id: `cus_${unique()}`, ...a, name: 'Tx', email } });
        // A filtered read is Prisma's; it must see the row just written in this transaction.
        expect(await tx.customer.findFirst({ where: { email } })).toStrictEqual(customer);
        await tx.customer.updateMany({ where: { email }, data: { name: 'Tx changed' } });
        expect(await tx.customer.findUnique({ where: { id: customer.id } })).toMatchObject({ name: 'Tx changed' });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await db.prisma.customer.findFirst({ where: { email } })).toBeNull();
    const count = await scoped.customer.createMany({ data: [{ id: `cus_${unique()}`, ...a, name: 'One', email }, { id: `cus_${unique()}`, ...a, name: 'Two', email }] });
    expect(count).toEqual({ count: 2 });
    expect(await db.prisma.customer.count({ where: { email } })).toBe(2);
  });

  it("reaches only the caller's own business row", async () => {
    expect(await tenantDb(b).business.findUnique({ where: { id: a.businessId } })).toBeNull();
    expect(await tenantDb(b).business.findMany({})).toEqual([expect.objectContaining({ id: b.businessId })]);
    await expect(tenantDb(b).business.update({ where: { id: a.businessId }, data: { name: 'taken' } })).rejects.toMatchObject({ code: 'P2025' });
    await expect(tenantDb(b).business.create({ data: { id: 'biz_x', name: 'x' } })).rejects.toBeInstanceOf(TenantScopeViolation);
  });

  it('refuses nested writes, which would create rows the scope never sees', async () => {
    await expect(
      tenantDb(a).customer.create({ data: { id: `cus_${unique()}`, ...a, name: 'N', conversations: { create: { id: `conv_${unique()}`, ...b, channel: 'sms' } } } as never }),
    ).rejects.toBeInstanceOf(TenantScopeViolation);
  });
});
