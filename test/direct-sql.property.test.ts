import fc from 'fast-check';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, openPGlite, type Database } from '../src/db/database.ts';
import { compileDirect, directSql, readTimestamp, TIMESTAMP_OID, type DirectSql, type SqlExecutor } from '../src/db/direct-sql.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { readTemplate } from '../src/db/pglite-template.ts';
import { scopeArgs, TENANT_MODELS, tenantDbFactory, type TenantScope } from '../src/db/tenant-db.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import * as Enums from '../src/generated/prisma/enums.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { delegate, keyOf, models, rowData } from './support/rows.ts';

/*
 * The tenant scope's direct SQL (src/db/direct-sql.ts) against Prisma itself, on generated
 * input, on both engines. On PostgreSQL the service's own direct SQL runs; on PGlite the same
 * compiled statements run through PGlite's own query. For every generated case:
 * - inserts: rows of a random tenant model (every column given, omitted or null at random,
 *   sometimes a value the direct path must leave to Prisma), created or created many through
 *   the scope, answer and stored row exactly what Prisma's own create (rolled back) gives;
 * - reads: a seeded row of two tenants and both environments, read through a scope that owns
 *   it or not, by id plus equalities and a generated `where` tree (equalities, null, in and
 *   notIn (empty too), lt/lte/gt/gte, has, AND/OR/NOT nested and empty, some/none of to-many
 *   relations), a selection or none: the scope's answer is Prisma's for the same scoped
 *   arguments, field by field and in the same key order.
 * Each case also checks that the direct path was taken exactly when the operation is one it
 * claims (said here independently of its code), and the run fails if too few cases found a
 * row through it, so that it cannot pass by comparing nothing.
 */

const READS = 200;
const INSERTS = 100;

type Row = Record<string, unknown>;
type Field = (typeof models)[string]['fields'][number];
type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };
const settle = (promise: Promise<unknown>): Promise<Settled> => promise.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));

const ENUMS = Enums as unknown as Record<string, Record<string, string>>;
const own = (model: string) => models[model].fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
const foreignKeys = (model: string) => new Set(models[model].fields.flatMap((f) => f.relationFromFields ?? []));
const toMany = (model: string) => models[model].fields.filter((f) => f.kind === 'object' && f.isList);
/** Fields Prisma fills from the clock when a new row leaves them out. */
const byClock = (f: Field) => f.type === 'DateTime' && (f.hasDefaultValue || f.isUpdatedAt);
/** Models whose rows are one per business and environment (a website): the tenant's row is removed before another is made. */
const onePerTenant = (model: string) => ((models[model] as unknown as { uniqueIndexes?: { fields: string[] }[] }).uniqueIndexes ?? []).some(({ fields }) => fields.length === 2 && fields.includes('businessId') && fields.includes('livemode'));

const text = fc.string({ unit: 'grapheme', maxLength: 8 }).filter((s) => !s.includes('\u0000'));

/** A valid value of one column (an item of it, for a list). */
function valueOf(field: Field): fc.Arbitrary<unknown> {
  if (field.kind === 'enum') return fc.constantFrom(...Object.values(ENUMS[field.type]));
  switch (field.type) {
    case 'String':
      return fc.oneof(text, fc.constantFrom('', 'a', 'A', "O'Brien", 'x"y', 'back\\slash', '{a,b}', 'NULL', 'é'));
    case 'Int':
      return fc.oneof(fc.integer({ min: -5, max: 50_000 }), fc.constantFrom(0, 2 ** 31 - 1, -(2 ** 31)));
    case 'Boolean':
      return fc.boolean();
    case 'DateTime':
      return fc.date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true });
    case 'Json':
      // Numbers with at most 15 significant digits: Prisma reads some 17-digit doubles of a JSON
      // column back rounded (1.0599680360140081e+35 as 1.059968036014008e+35), where the direct
      // path keeps the value written; the property holds the two equal where Prisma is exact.
      return fc.jsonValue({ maxDepth: 2 }).filter((v) => v !== null).map(toFifteenDigits);
    default:
      throw new Error(`${field.name}: no values of ${field.type}`);
  }
}
/** A JSON value with every number cut to 15 significant digits (what survives any double round trip). */
function toFifteenDigits(value: unknown): unknown {
  if (typeof value === 'number') return Number(value.toPrecision(15));
  if (Array.isArray(value)) return value.map(toFifteenDigits);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toFifteenDigits(v)]));
  return value;
}
const columnValue = (field: Field) => (field.isList ? fc.array(valueOf(field), { maxLength: 3 }) : valueOf(field));

const OMIT = Symbol('omit');

/** Random values for a row's own columns (not its id, owner or parents): given, left out or null, as the column allows. */
function rowValues(model: string): fc.Arbitrary<Record<string, unknown>> {
  const parents = foreignKeys(model);
  const fields = own(model).filter((f) => !f.isId && f.name !== 'businessId' && f.name !== 'livemode' && !parents.has(f.name));
  return fc.record(
    Object.fromEntries(
      fields.map((f) => {
        const choices: fc.Arbitrary<unknown>[] = [columnValue(f)];
        if (!f.isRequired || f.hasDefaultValue || f.isUpdatedAt) choices.push(fc.constant(OMIT));
        // A JSON column's null is Prisma's JsonNull or DbNull to write (leftToPrisma).
        if (!f.isRequired && !f.isList && f.type !== 'Json') choices.push(fc.constant(null));
        return [f.name, fc.oneof(...choices)];
      }),
    ),
  );
}

/** A value the direct path must leave to Prisma: JSON null, a time as text, a fraction for an integer. */
function leftToPrisma(model: string): fc.Arbitrary<Record<string, unknown> | null> {
  const parents = foreignKeys(model);
  const options = own(model)
    .filter((f) => !f.isList && !parents.has(f.name) && f.name !== 'businessId' && f.name !== 'livemode' && !f.isId)
    .flatMap((f): Row[] => (f.type === 'Json' ? [{ [f.name]: null }] : f.type === 'DateTime' ? [{ [f.name]: '2030-01-02T03:04:05.678Z' }] : f.type === 'Int' ? [{ [f.name]: 1.5 }] : []));
  return options.length ? fc.option(fc.constantFrom(...options), { freq: 6 }) : fc.constant(null);
}

/** A condition of `model`'s `where`, `depth` levels of AND / OR / NOT / some / none deep, its values often those of `row`. */
function condition(model: string, row: Row | undefined, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const fields = own(model).filter((f) => f.type !== 'Json');
  const sample = (f: Field) => (row && row[f.name] !== null && row[f.name] !== undefined && !f.isList ? fc.oneof(fc.constant(row[f.name]), valueOf(f)) : valueOf(f));
  const leaf = fc.constantFrom(...fields).chain((f): fc.Arbitrary<Record<string, unknown>> => {
    if (f.isList) return fc.oneof(valueOf(f).map((v) => ({ [f.name]: { has: v } })), sample(f).map((v) => ({ [f.name]: { has: v } })));
    const filters: fc.Arbitrary<unknown>[] = [
      sample(f),
      fc.array(sample(f), { maxLength: 3 }).map((list) => ({ in: list })),
      fc.array(sample(f), { maxLength: 3 }).map((list) => ({ notIn: list })),
    ];
    if (!f.isRequired) filters.push(fc.constant(null));
    if (f.kind !== 'enum' && f.type !== 'Boolean') {
      filters.push(fc.record({ op: fc.constantFrom('lt', 'lte', 'gt', 'gte'), value: sample(f) }).map(({ op, value }) => ({ [op]: value })));
    }
    return fc.oneof(...filters).map((filter) => ({ [f.name]: filter }));
  });
  if (depth === 0) return leaf;
  const inner = condition(model, row, depth - 1);
  const relations = toMany(model).filter((r) => TENANT_MODELS.has(r.type));
  const nested: { weight: number; arbitrary: fc.Arbitrary<Record<string, unknown>> }[] = [
    { weight: 5, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(inner, { maxLength: 2 }).map((list) => ({ AND: list })) },
    { weight: 1, arbitrary: fc.array(inner, { maxLength: 2 }).map((list) => ({ OR: list })) },
    { weight: 1, arbitrary: fc.oneof(inner, fc.array(inner, { maxLength: 2 })).map((not) => ({ NOT: not })) },
  ];
  if (relations.length) {
    const related = fc.constantFrom(...relations).chain((r) =>
      fc.record({ op: fc.constantFrom('some', 'none'), filter: condition(r.type, undefined, depth - 1) }).map(({ op, filter }) => ({ [r.name]: { [op]: filter } })),
    );
    nested.push({ weight: 1, arbitrary: related });
  }
  return fc.oneof(...nested);
}

/** What the direct path claims to read, said apart from its code: findUnique by a text id, only text and boolean equalities, the whole row or own columns. */
function claimsRead(model: string, operation: string, args: Row): boolean {
  if (operation !== 'findUnique') return false;
  const { where, select, include, ...rest } = args as { where: Row; select?: Row; include?: Row };
  if (Object.values(rest).some((v) => v !== undefined)) return false;
  if (include !== undefined && Object.keys(include).length > 0) return false;
  const columns = new Map(own(model).map((f) => [f.name, f]));
  if (select !== undefined && !(Object.keys(select).length > 0 && Object.entries(select).every(([k, v]) => v === true && columns.has(k)))) return false;
  if (typeof where.id !== 'string') return false;
  return Object.entries(where).every(([k, v]) => {
    const f = columns.get(k);
    return v === undefined || (f?.kind === 'scalar' && !f.isList && ((f.type === 'String' && typeof v === 'string') || (f.type === 'Boolean' && typeof v === 'boolean')));
  });
}

/** Answers compared as values and types (toStrictEqual) and, row by row, in the same key order. */
function expectSame(ours: Settled, prismas: Settled, context: unknown) {
  expect({ context, ok: ours.ok }).toStrictEqual({ context, ok: prismas.ok });
  if (!ours.ok || !prismas.ok) return;
  expect({ context, answer: ours.value }).toStrictEqual({ context, answer: prismas.value });
  const keys = (v: unknown): unknown => (Array.isArray(v) ? v.map(keys) : v && typeof v === 'object' ? Object.keys(v) : v);
  expect({ context, keys: keys(ours.value) }).toStrictEqual({ context, keys: keys(prismas.value) });
}

interface Engine {
  db: Database;
  prisma: PrismaClient;
  direct: DirectSql;
  close(): Promise<void>;
}

async function openEngine(engine: (typeof ENGINES)[number]): Promise<Engine> {
  if (engine === 'postgres') {
    const pg = await createTestPostgresDatabase();
    const db = await openDatabase({ databaseUrl: pg.url });
    // The service's own direct SQL, on the pool its Prisma client uses.
    return { db, prisma: db.prisma, direct: db.direct!, close: async () => { await db.close(); await pg.drop(); } };
  }
  const template = await readTemplate();
  const embedded = await openPGlite('memory://', template);
  if (!template) await applyMigrations({ kind: 'pglite', pglite: embedded.pglite });
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(embedded.pglite) });
  // The same compiled statements, run by PGlite's own query (the service runs them on PostgreSQL only).
  const execute: SqlExecutor = async ({ text: sql, values }) => {
    const result = await embedded.pglite.query<Row>(sql, values, { parsers: { [TIMESTAMP_OID]: readTimestamp } });
    return { rows: result.rows, count: result.affectedRows ?? 0 };
  };
  return { db: { prisma, kind: 'pglite' } as Database, prisma, direct: directSql(execute), close: async () => { await prisma.$disconnect(); await embedded.close(); } };
}

class Rollback {
  constructor(readonly answer: unknown, readonly rows: unknown[]) {}
}

describe.each(ENGINES)('direct SQL equals Prisma on %s', (engine) => {
  let e: Engine;
  let owners: TenantScope[];
  let tenantDb: ReturnType<typeof tenantDbFactory>;
  /** Rows the insert property wrote through the direct path: the read property's seeds. */
  const seeded: { model: string; row: Row; owner: number }[] = [];

  beforeAll(async () => {
    e = await openEngine(engine);
    const a = (await createBusiness(e.prisma, { name: 'A' })).business_id;
    const b = (await createBusiness(e.prisma, { name: 'B' })).business_id;
    owners = [{ businessId: a, livemode: false }, { businessId: a, livemode: true }, { businessId: b, livemode: false }];
    tenantDb = tenantDbFactory(e.prisma, undefined, { direct: e.direct });
  });
  afterAll(async () => e?.close());

  it(`writes ${INSERTS} generated creates and createManys as Prisma does`, async () => {
    const clock = { t: Date.UTC(2031, 0, 1) };
    let written = 0;
    const cases = fc.constantFrom(...TENANT_MODELS.keys()).chain((model) =>
      fc.record({
        model: fc.constant(model),
        owner: fc.nat({ max: 2 }),
        many: fc.boolean(),
        rows: fc.array(rowValues(model), { minLength: 1, maxLength: 3 }),
        unplain: leftToPrisma(model),
      }),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ model, owner, many, rows, unplain }) => {
        const scope = owners[owner];
        if (onePerTenant(model)) await delegate(e.prisma, model).deleteMany({ where: { businessId: scope.businessId, livemode: scope.livemode } });
        const data: Row[] = [];
        for (const values of many ? rows : rows.slice(0, 1)) {
          const row = await rowData(e.db, model, scope, clock);
          for (const [k, v] of Object.entries(values)) {
            if (v === OMIT) delete row[k];
            else row[k] = v;
          }
          data.push(row);
        }
        if (unplain) Object.assign(data[0], unplain);
        const operation = many ? 'createMany' : 'create';
        const args = { data: many ? data : data[0] };
        const context = { model, operation, data };
        const claimed = compileDirect(model, operation, scopeArgs(model, operation, args, scope)) !== null;
        expect({ context, claimed }).toStrictEqual({ context, claimed: !unplain });

        // Prisma's own answer and rows, rolled back so that the same rows can be written again.
        const started = Date.now();
        const prismas = await e.prisma
          .$transaction(async (tx) => {
            const answer = await delegate(tx, model)[operation](scopeArgs(model, operation, args, scope));
            throw new Rollback(answer, await Promise.all(data.map((row) => delegate(tx, model).findUnique({ where: keyOf(model, row) }))));
          })
          .then(
            () => ({ ok: true as const, value: null }),
            (error: unknown) => (error instanceof Rollback ? { ok: true as const, value: error } : { ok: false as const, error }),
          );
        const before = e.direct.statements;
        const ours = await settle(delegate(tenantDb(scope), model)[operation](args));
        const ended = Date.now();
        expect({ context, direct: e.direct.statements - before }).toStrictEqual({ context, direct: claimed ? 1 : 0 });
        expect({ context, ok: ours.ok }).toStrictEqual({ context, ok: prismas.ok });
        if (!ours.ok || !prismas.ok) return;
        written++;
        const stored = (await Promise.all(data.map((row) => delegate(e.prisma, model).findUnique({ where: keyOf(model, row) })))) as Row[];
        const theirs = (prismas.value as Rollback).rows as Row[];
        // The clock's fields a row leaves out (Prisma writes its own time) are times of the call; the rest is equal.
        const clockFields = data.map((row) => own(model).filter((f) => byClock(f) && row[f.name] === undefined).map((f) => f.name));
        const timeless = (list: Row[]) =>
          list.map((row, i) => {
            for (const name of clockFields[i]) {
              expect({ context, name, time: row[name] instanceof Date && (row[name] as Date).getTime() >= started - 1 && (row[name] as Date).getTime() <= ended + 1 }).toStrictEqual({ context, name, time: true });
            }
            return { ...row, ...Object.fromEntries(clockFields[i].map((name) => [name, 'clock'])) };
          });
        expectSame({ ok: true, value: timeless(stored) }, { ok: true, value: timeless(theirs) }, context);
        if (operation === 'create') expectSame(ours, { ok: true, value: stored[0] }, context);
        else expect({ context, answer: ours.value }).toStrictEqual({ context, answer: { count: data.length } });
        seeded.push(...stored.map((row) => ({ model, row, owner })));
      }),
      { numRuns: INSERTS },
    );
    // Most cases wrote rows (a random value may break a CHECK: then both refuse, as compared above).
    expect(written).toBeGreaterThan(INSERTS * 0.6);
  });

  it(`reads ${READS} generated where trees as Prisma does`, async () => {
    const byId = seeded.filter(({ row }) => typeof row.id === 'string');
    expect(byId.length).toBeGreaterThan(50);
    const stats = { claimed: 0, claimedFound: 0, left: 0 };
    const cases = fc.constantFrom(...byId).chain(({ model, row, owner }) => {
      const texts = own(model).filter((f) => f.kind === 'scalar' && !f.isList && (f.type === 'String' || f.type === 'Boolean') && !f.isId);
      const equality = texts.length
        ? fc.constantFrom(...texts).chain((f) => fc.oneof({ weight: 3, arbitrary: row[f.name] === null ? valueOf(f) : fc.constant(row[f.name]) }, { weight: 1, arbitrary: valueOf(f) }).map((v) => [f.name, v] as const))
        : fc.constant(null);
      const columns = own(model).map((f) => f.name);
      return fc.record({
        model: fc.constant(model),
        id: fc.oneof({ weight: 7, arbitrary: fc.constant(row.id) }, { weight: 1, arbitrary: fc.constant('missing_id') }),
        // Mostly the owner's scope; else another business, or the other environment (which must find nothing).
        scope: fc.oneof({ weight: 3, arbitrary: fc.constant(owner) }, { weight: 2, arbitrary: fc.nat({ max: 2 }) }),
        operation: fc.constantFrom('findUnique', 'findUnique', 'findUnique', 'findUnique', 'findFirst', 'findMany'),
        equalities: fc.array(equality, { maxLength: 2 }),
        tree: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: condition(model, row, 2) }),
        select: fc.option(
          fc.record({ names: fc.subarray(columns, { minLength: 1 }).chain((names) => fc.shuffledSubarray(names, { minLength: names.length })), not: fc.option(fc.constantFrom(...columns), { freq: 4 }) }),
          { freq: 2 },
        ),
        include: fc.boolean(),
        page: fc.record({ take: fc.option(fc.nat({ max: 3 })), skip: fc.option(fc.nat({ max: 2 })) }),
      });
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ model, id, scope, operation, equalities, tree, select, include, page }) => {
        const where: Row = { ...(tree ?? {}), ...Object.fromEntries(equalities.filter((x) => x !== null)), id };
        const args: Row = { where };
        if (select) args.select = { ...Object.fromEntries(select.names.map((n) => [n, true])), ...(select.not ? { [select.not]: false } : {}) };
        else if (include) args.include = {};
        if (operation === 'findMany') Object.assign(args, { orderBy: { id: 'asc' }, take: page.take ?? undefined, skip: page.skip ?? undefined });
        const scoped = scopeArgs(model, operation, args, owners[scope]);
        const claimed = claimsRead(model, operation, scoped);
        const context = { model, operation, args, scope: owners[scope] };
        expect({ context, claimed: compileDirect(model, operation, scoped) !== null }).toStrictEqual({ context, claimed });

        const before = e.direct.statements;
        const ours = await settle(delegate(tenantDb(owners[scope]), model)[operation](args));
        expect({ context, direct: e.direct.statements - before }).toStrictEqual({ context, direct: claimed ? 1 : 0 });
        const prismas = await settle(delegate(e.prisma, model)[operation](scoped));
        expectSame(ours, prismas, context);
        if (claimed) {
          stats.claimed++;
          if (ours.ok && ours.value) stats.claimedFound++;
        } else stats.left++;
      }),
      { numRuns: READS },
    );
    // The comparison reached both paths, and the direct one often found its row.
    expect(stats.claimedFound).toBeGreaterThan(READS * 0.04);
    expect(stats.left).toBeGreaterThan(READS * 0.2);
  });
});
