import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { blockingBookingsOverlapping } from '../src/domain/bookings/booking-overlap.ts';
import { TENANT_MODELS, tenantDbFactory, tenantOutbox, TenantScopeViolation, type TenantScope } from '../src/db/tenant-db.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { delegate, keyOf, makeRow, models, unique } from './support/rows.ts';

/**
 * Domain code reaches tenant rows only through the tenant scope (src/db/tenant-db.ts). For
 * every model of schema.prisma that belongs to a business, a row of business A in the
 * sandbox is invisible and untouchable through B's scope and through A's live scope, and a
 * row claiming another owner cannot be written; through A's own sandbox scope it is found
 * (so the check can fail). The rows are made from the datamodel, so a model added later is
 * covered without new test code.
 */

/** Names that are the unscoped client, its class, or its transaction (domain code names TenantDb and TenantTx). */
const UNSCOPED_NAMES = new Set(['PrismaClient', 'DefaultPrismaClient', 'TransactionClient', 'getPrismaClientClass']);
/** Modules that hand out the unscoped client or a connection of one's own. */
const UNSCOPED_MODULES = [/\/db\/database\.ts$/, /\/generated\/prisma\/internal\//, /^@prisma\/(client|adapter-)/, /^pglite-prisma-adapter$/, /^pg$/, /^@electric-sql\/pglite/];
const GENERATED_CLIENT = /\/generated\/prisma\/client\.ts$/;
const RAW_SQL = new Set(['$queryRaw', '$executeRaw', '$queryRawUnsafe', '$executeRawUnsafe', '$queryRawTyped']);

/**
 * Every way a domain file reaches past the tenant scope, read from its syntax tree: a name of
 * the unscoped client (in a type, an import, `import type` included, a qualified name, an
 * indexed type), a module that hands one out, the whole generated client as a namespace (which
 * would name it by a computed key), raw SQL.
 */
function unscopedReaches(file: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isIdentifier(node) || ts.isStringLiteral(node)) && UNSCOPED_NAMES.has(node.text)) found.push(`${file}: names the unscoped client (${node.text})`);
    if (ts.isIdentifier(node) && RAW_SQL.has(node.text)) found.push(`${file}: raw SQL (${node.text})`);
    if (ts.isStringLiteral(node) && UNSCOPED_MODULES.some((m) => m.test(node.text)) && isModuleName(node)) found.push(`${file}: imports ${node.text}`);
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && GENERATED_CLIENT.test(node.moduleSpecifier.text) && node.importClause?.namedBindings && ts.isNamespaceImport(node.importClause.namedBindings)) {
      found.push(`${file}: imports the whole generated client`);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return found;
}

/** The string is where a module is named: import / export ... from, import(), import('...') in a type, require(). */
function isModuleName(node: ts.StringLiteral): boolean {
  const parent = node.parent;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return true;
  if (ts.isLiteralTypeNode(parent) && ts.isImportTypeNode(parent.parent)) return true;
  return ts.isCallExpression(parent) && (parent.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(parent.expression) && parent.expression.text === 'require'));
}

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
    for (const file of files) offenders.push(...unscopedReaches(file, await readFile(path.join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the domain check catches type imports and the other names of the unscoped client, and lets the scoped types pass', () => {
    const caught = (source: string) => unscopedReaches('sample.ts', source);
    const unscoped = [
      "import type { PrismaClient } from '../../generated/prisma/client.ts';",
      "import { PrismaClient } from '../../generated/prisma/client.ts';",
      "import { type Booking, type PrismaClient as Base } from '../../generated/prisma/client.ts';",
      "import type { Prisma } from '../../generated/prisma/client.ts'; type Tx = Prisma.TransactionClient;",
      "import type { Prisma } from '../../generated/prisma/client.ts'; type C = Prisma.DefaultPrismaClient;",
      "type C = import('../../generated/prisma/client.ts').PrismaClient;",
      "type C = typeof import('../../generated/prisma/client.ts')['PrismaClient'];",
      "import * as generated from '../../generated/prisma/client.ts';",
      "import type { PrismaClient } from '../../generated/prisma/internal/class.ts';",
      "import type { Database } from '../../db/database.ts';",
      "const { openDatabase } = await import('../../db/database.ts');",
      "import { PrismaPg } from '@prisma/adapter-pg';",
      'const rows = await db.$queryRawUnsafe(text);',
    ];
    for (const source of unscoped) expect({ source, caught: caught(source).length > 0 }).toEqual({ source, caught: true });
    const scoped = [
      "import type { TenantDb, TenantTx } from '../../db/tenant-db.ts'; type T = TenantTx;",
      "import { Prisma, type Booking } from '../../generated/prisma/client.ts'; const w: Prisma.BookingWhereInput = {}; const q = Prisma.sql`SELECT 1`;",
      "import type { OwnerLookup } from '../../db/owner-lookup.ts';",
      "import { isUniqueViolation } from '../../db/database-errors.ts';",
    ];
    for (const source of scoped) expect({ source, caught: caught(source) }).toEqual({ source, caught: [] });
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

  const oneRowPerTenant = (model: string) =>
    ((models[model] as unknown as { uniqueIndexes?: { fields: string[] }[] }).uniqueIndexes ?? []).some(({ fields }) => fields.length === 2 && fields.includes('businessId') && fields.includes('livemode'));

  it.each([...TENANT_MODELS.keys()])('%s written through the scope, alone or in a transaction, is the row Prisma reads back', async (model) => {
    const scoped = tenantDb(a);
    const statements = () => db.direct?.statements ?? 0;
    const before = statements();
    // A model with one row per tenant (a website) makes each row once the one before is gone.
    const single = oneRowPerTenant(model);
    if (single) await delegate(db.prisma, model).deleteMany({ where: { businessId: a.businessId, livemode: a.livemode } });
    const alone = await makeRow(db, model, a, undefined, scoped);
    expect(alone).toStrictEqual(await delegate(db.prisma, model).findUnique({ where: keyOf(model, alone) }));
    if (single) await delegate(db.prisma, model).delete({ where: keyOf(model, alone) });
    const between = statements();
    const inTransaction = await scoped.$transaction((tx) => makeRow(db, model, a, undefined, tx));
    expect(inTransaction).toStrictEqual(await delegate(db.prisma, model).findUnique({ where: keyOf(model, inTransaction) }));
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

  it('answers filtered reads as Prisma does with the owner added (filters, order, pages, selections)', async () => {
    const scoped = tenantDb(a);
    const vehicle = await makeRow(db, 'Vehicle', a);
    const customer = await makeRow(db, 'Customer', a);
    const day = 86_400_000;
    const t0 = Date.UTC(2031, 0, 1);
    const states = ['pending_payment', 'checkout_started', 'confirmed', 'canceled', 'pending_payment', 'completed'] as const;
    for (const [i, state] of states.entries()) {
      await db.prisma.booking.create({
        data: {
          id: `bk_${unique()}`, ...a, vehicleId: String(vehicle.id), customerId: String(customer.id), state, startAt: new Date(t0 + i * 10 * day), endAt: new Date(t0 + (i * 10 + 3) * day),
          days: 3, currency: 'usd', dailyRateCents: 100 * (i % 3), rentalCents: 300, unlimitedMilesFeeCents: 0, deliveryFeeCents: 0, depositCents: 0, includedMiles: 10, extraMileFeeCents: 1, totalCents: 300,
          holdExpiresAt: i === 5 ? null : new Date(t0 - (i - 2) * day), metadata: { n: i },
        },
      });
    }
    await db.prisma.webhookEndpoint.create({ data: { id: `we_${unique()}`, ...a, url: 'https://example.com/a', enabledEvents: ['booking.created'], secret: 'whsec_a' } });
    await db.prisma.webhookEndpoint.create({ data: { id: `we_${unique()}`, ...a, url: 'https://example.com/b', enabledEvents: ['*'], secret: 'whsec_b', enabled: false } });
    const vehicleId = String(vehicle.id);
    type Read = [string, 'findMany' | 'findFirst' | 'findUnique', Record<string, unknown>];
    const reads: Read[] = [
      ['Booking', 'findMany', { where: { vehicleId, state: { in: ['pending_payment', 'checkout_started'] }, holdExpiresAt: { lte: new Date(t0) } }, orderBy: { holdExpiresAt: 'asc' }, take: 100 }],
      ['Booking', 'findMany', { where: { vehicleId, state: { in: [] } } }],
      ['Booking', 'findMany', { where: { vehicleId, holdExpiresAt: null } }],
      ['Booking', 'findMany', { where: { vehicleId, OR: [{ state: 'canceled' }, { dailyRateCents: { gt: 100 } }] }, orderBy: [{ dailyRateCents: 'desc' }, { id: 'asc' }] }],
      ['Booking', 'findMany', { where: { vehicleId, startAt: { gte: new Date(t0 + 10 * day), lt: new Date(t0 + 40 * day) } }, orderBy: { startAt: 'desc' }, skip: 1, take: 2 }],
      ['Booking', 'findMany', { where: { vehicleId }, select: { id: true, state: true, metadata: true, startAt: true }, orderBy: { id: 'asc' } }],
      ['Booking', 'findFirst', { where: { vehicleId, state: 'confirmed' }, orderBy: { id: 'desc' } }],
      ['Booking', 'findFirst', { where: { vehicleId, state: 'active' } }],
      ['WebhookEndpoint', 'findMany', { where: { enabled: true, OR: [{ enabledEvents: { has: '*' } }, { enabledEvents: { has: 'booking.created' } }] }, select: { id: true } }],
      ['WebhookEndpoint', 'findMany', { where: { AND: [{ enabled: false }, { url: { in: ['https://example.com/b'] } }] } }],
      ['Customer', 'findUnique', { where: { id: String(customer.id) }, select: { email: true } }],
      ['Booking', 'findMany', { where: { vehicleId, state: { notIn: ['canceled', 'completed'] } }, orderBy: { id: 'asc' } }],
      ['Booking', 'findMany', { where: { vehicleId, state: { notIn: [] } }, orderBy: { id: 'asc' } }],
      // NOT over a column that is NULL in one row (three-valued, as Prisma writes it), and NOT of a list.
      ['Booking', 'findMany', { where: { vehicleId, NOT: { state: { in: ['pending_payment', 'completed'] }, holdExpiresAt: { lte: new Date(t0) } } }, orderBy: { id: 'asc' } }],
      ['Booking', 'findMany', { where: { vehicleId, NOT: [{ state: 'canceled' }, { holdExpiresAt: null }] }, orderBy: { id: 'asc' } }],
      // A to-many relation: vehicles with none (or some) of their bookings blocking a period.
      ...[t0, t0 + 25 * day, t0 + 400 * day].flatMap((start): Read[] => [
        ['Vehicle', 'findMany', { where: { id: vehicleId, bookings: { none: blockingBookingsOverlapping({ startAt: new Date(start), endAt: new Date(start + 2 * day) }, new Date(t0)) } } }],
        ['Vehicle', 'findFirst', { where: { bookings: { some: { ...blockingBookingsOverlapping({ startAt: new Date(start), endAt: new Date(start + 2 * day) }, new Date(t0)), vehicleId } } }, select: { id: true, status: true } }],
      ]),
    ];
    for (const [model, operation, args] of reads) {
      const owner = { businessId: a.businessId, livemode: a.livemode };
      const ours = await delegate(scoped, model)[operation](args);
      const prismas = await delegate(db.prisma, model)[operation]({ ...args, where: { ...(args.where as object), ...owner } });
      expect({ model, args, answer: ours }).toStrictEqual({ model, args, answer: prismas });
    }
    expect(await scoped.booking.count({ where: { vehicleId } })).toBe(6);
  });

  it("reaches only the caller's own business row", async () => {
    expect(await tenantDb(b).business.findUnique({ where: { id: a.businessId } })).toBeNull();
    expect(await tenantDb(b).business.findMany({})).toEqual([expect.objectContaining({ id: b.businessId })]);
    await expect(tenantDb(b).business.update({ where: { id: a.businessId }, data: { name: 'taken' } })).rejects.toMatchObject({ code: 'P2025' });
    await expect(tenantDb(b).business.create({ data: { id: 'biz_x', name: 'x' } })).rejects.toBeInstanceOf(TenantScopeViolation);
  });

  it("queues webhook messages of its own events only: another business's or environment's event queues nothing", async () => {
    // A business of its own: the rows above gave A endpoints of theirs.
    const a = { businessId: (await createBusiness(db.prisma, { name: 'Fan-out' })).business_id, livemode: false };
    const endpoint = `we_${unique()}`;
    await db.prisma.webhookEndpoint.create({ data: { id: endpoint, ...a, url: 'https://example.com/hook', enabledEvents: ['*'], secret: 'whsec_test' } });
    const event = `evt_${unique()}`;
    await db.prisma.event.create({ data: { id: event, ...a, type: 'booking.created', data: { object: {} } } });
    const fanOut = { eventId: event, onlyEndpointId: null, appScopes: ['bookings:read'], appId: null };
    expect(await tenantDb(b).$queueEventMessages({ ...fanOut, idPrefix: `whm_${unique()}` })).toBe(0);
    expect(await tenantDb({ ...a, livemode: true }).$queueEventMessages({ ...fanOut, idPrefix: `whm_${unique()}` })).toBe(0);
    expect(await tenantDb(b).$queueEventMessages({ ...fanOut, onlyEndpointId: endpoint, idPrefix: `whm_${unique()}` })).toBe(0);
    expect(await db.prisma.webhookMessage.count({ where: { eventId: event } })).toBe(0);
    // Its own scope queues the one subscribed endpoint, in a transaction too.
    expect(await tenantDb(a).$transaction((tx) => tenantOutbox(tx).$queueEventMessages({ ...fanOut, idPrefix: `whm_${unique()}` }))).toBe(1);
    expect(await db.prisma.webhookMessage.findMany({ where: { eventId: event }, select: { endpointId: true, businessId: true, livemode: true, state: true } })).toEqual([{ endpointId: endpoint, ...a, state: 'pending' }]);
  });

  it('refuses nested writes, which would create rows the scope never sees', async () => {
    await expect(
      tenantDb(a).customer.create({ data: { id: `cus_${unique()}`, ...a, name: 'N', conversations: { create: { id: `conv_${unique()}`, ...b, channel: 'sms' } } } as never }),
    ).rejects.toBeInstanceOf(TenantScopeViolation);
  });
});
