import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { DATAMODEL as models, type DirectSql } from './direct-sql.ts';
import { queueEventMessages as queueEventMessagesStatement } from './sql/generated/platform.ts';
import { asPgRows, valuesOf, type TenantStatement } from './sql/named-sql.ts';
import { checkTenantStatement, type TenantStatementShape } from './sql/tenant-sql.ts';
import { retryConflicts } from './transaction-retry.ts';

/** One business in one environment: the only rows a request may reach. */
export interface TenantScope {
  businessId: string;
  livemode: boolean;
}

interface ModelScope {
  /** The model's rows carry `livemode` (the team belongs to both environments). */
  environment: boolean;
  relations: ReadonlySet<string>;
}

/**
 * Every model that belongs to a business (it has `businessId`), read from schema.prisma's
 * datamodel, so a model added later is scoped without anyone listing it. `Business` itself is
 * reachable too, as the caller's own row only.
 */
export const TENANT_MODELS: ReadonlyMap<string, ModelScope> = new Map(
  Object.entries(models)
    .filter(([name, m]) => name !== 'Business' && m.fields.some((f) => f.name === 'businessId'))
    .map(([name, m]) => [
      name,
      { environment: m.fields.some((f) => f.name === 'livemode'), relations: new Set(m.fields.filter((f) => f.kind === 'object').map((f) => f.name)) },
    ]),
);

const READS_AND_WRITES_BY_WHERE = new Set([
  'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count', 'aggregate', 'groupBy',
  'update', 'updateMany', 'updateManyAndReturn', 'delete', 'deleteMany',
]);
const CREATES = new Set(['create', 'createMany', 'createManyAndReturn']);
const SINGLE_ROW = new Set(['findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'create', 'update', 'upsert', 'delete']);

/** A write or read that would leave the caller's business and environment. */
export class TenantScopeViolation extends Error {
  override name = 'TenantScopeViolation';
}

/**
 * Told of each row an operation reads or writes by itself (for the audit record), while it
 * wants to be: reads are not audited, so a read pays nothing for it.
 */
export interface RowObserver {
  wants(): boolean;
  touch(model: string, row: { id?: unknown; bookingId?: unknown }): void;
}

type Args = Record<string, unknown> & { where?: Record<string, unknown>; data?: unknown; create?: unknown; update?: unknown };

/**
 * The arguments of one Prisma operation, confined to `scope`: every filter gets the business
 * and environment (so another tenant's row is never found, changed or deleted), and every
 * row written must belong to the scope (a different owner throws rather than being fixed).
 */
export function scopeArgs(model: string, operation: string, args: Args | undefined, scope: TenantScope): Args {
  const modelScope = TENANT_MODELS.get(model);
  const owner: Record<string, unknown> =
    model === 'Business' ? { id: scope.businessId } : modelScope?.environment ? { businessId: scope.businessId, livemode: scope.livemode } : { businessId: scope.businessId };
  if (!modelScope && model !== 'Business') throw new TenantScopeViolation(`${model} is not a tenant model`);
  const scoped: Args = { ...(args ?? {}) };
  if (model === 'Business' && (CREATES.has(operation) || operation === 'upsert' || operation.startsWith('delete'))) {
    throw new TenantScopeViolation(`a request cannot ${operation} a business`);
  }
  if (READS_AND_WRITES_BY_WHERE.has(operation) || operation === 'upsert') scoped.where = ownedWhere(scoped.where ?? {}, owner);
  if (CREATES.has(operation)) {
    scoped.data = Array.isArray(scoped.data) ? scoped.data.map((row) => ownRow(model, row, owner, modelScope)) : ownRow(model, scoped.data, owner, modelScope);
  } else if (operation === 'upsert') {
    scoped.create = ownRow(model, scoped.create, owner, modelScope);
    scoped.update = keepOwner(model, scoped.update, owner, modelScope);
  } else if (operation.startsWith('update')) {
    scoped.data = keepOwner(model, scoped.data, owner, modelScope);
  } else if (!READS_AND_WRITES_BY_WHERE.has(operation)) {
    throw new TenantScopeViolation(`${model}.${operation} is not available through the tenant scope`);
  }
  return scoped;
}

/**
 * The caller's conditions and the owner's, both holding. Merged flat when they do not
 * collide (Prisma's fast path for unique reads); a caller's own condition on an owner field
 * (another business's id, a filter) is kept and the owner AND-ed to it, never overwritten.
 */
function ownedWhere(where: Record<string, unknown>, owner: Record<string, unknown>): Record<string, unknown> {
  let collides = false;
  for (const field in owner) collides ||= field in where && where[field] !== owner[field];
  if (!collides) return { ...where, ...owner };
  const and = where.AND === undefined ? [] : Array.isArray(where.AND) ? where.AND : [where.AND];
  return { ...where, AND: [...and, owner] };
}

/** A new row must name its owner, and it must be the scope (checked, never silently fixed). */
function ownRow(model: string, data: unknown, owner: Record<string, unknown>, modelScope: ModelScope | undefined): unknown {
  const row = keepOwner(model, data, owner, modelScope) as Record<string, unknown>;
  for (const field of Object.keys(owner)) {
    if (row[field] === undefined) throw new TenantScopeViolation(`a new ${model} must name its ${field}`);
  }
  return row;
}

/** Writes keep the owner: a different business or environment, or a nested write, throws. */
function keepOwner(model: string, data: unknown, owner: Record<string, unknown>, modelScope: ModelScope | undefined): unknown {
  if (data === null || typeof data !== 'object') return data;
  const row = data as Record<string, unknown>;
  for (const [field, value] of Object.entries(owner)) {
    if (field !== 'id' && row[field] !== undefined && row[field] !== value) {
      throw new TenantScopeViolation(`${model}.${field} may not be set to another tenant's value`);
    }
  }
  if (model === 'Business' && row.id !== undefined && row.id !== owner.id) throw new TenantScopeViolation('a business id cannot change');
  for (const relation of modelScope?.relations ?? []) {
    // Nested writes would create or connect rows the scope never sees.
    if (row[relation] !== undefined) throw new TenantScopeViolation(`${model}.${relation}: write related records through the tenant scope, not nested`);
  }
  return row;
}

const OPERATIONS = [
  'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count', 'aggregate', 'groupBy',
  'create', 'createMany', 'createManyAndReturn', 'update', 'updateMany', 'updateManyAndReturn', 'upsert', 'delete', 'deleteMany',
] as const;

/** Delegate name (`booking`) → model (`Booking`), for every model of the datamodel. */
const MODEL_OF_DELEGATE = new Map(Object.keys(models).map((m) => [m[0].toLowerCase() + m.slice(1), m]));
const CLIENT_ONLY = new Set(['$extends', '$use', '$on', '$connect', '$disconnect']);
/** Prisma's raw SQL reaches every tenant's rows: through the scope, SQL is a named tenant statement run by `$run`. */
const RAW_SQL = new Set(['$queryRaw', '$queryRawUnsafe', '$executeRaw', '$executeRawUnsafe', '$queryRawTyped']);

/** Every table that holds tenants' rows (a model's name: the schema maps none elsewhere), `Business` included. */
export const TENANT_TABLES: ReadonlySet<string> = new Set(['Business', ...TENANT_MODELS.keys()]);

/** Each statement's shape, checked once per process (`checkTenantStatement`). */
const checkedShapes = new WeakMap<object, Promise<TenantStatementShape>>();

/**
 * One named tenant statement (src/db/sql/tenant/*.sql), reading the tenant's rows only: it is
 * checked first on PostgreSQL's own parse of it (one SELECT that writes and locks nothing,
 * names its tables by themselves, calls only harmless functions: `checkTenantStatement`),
 * then every tenant table is shadowed, for that statement, by a common table expression of
 * the table's rows restricted to the scope's business (and environment). The scope binds
 * those as parameters after the statement's own; the caller never passes them, and no row of
 * another tenant is in sight whatever the statement says.
 */
async function runTenantStatement<Row>(client: PrismaClient, scope: TenantScope, statement: TenantStatement<object, Row>, params: object): Promise<Row[]> {
  if (statement?.kind !== 'tenant') throw new TenantScopeViolation('the tenant scope runs named tenant statements only');
  let shape = checkedShapes.get(statement);
  if (!shape) {
    shape = checkTenantStatement(statement.text, TENANT_TABLES).catch((err: Error) => {
      throw new TenantScopeViolation(`${statement.file}: ${err.message}`);
    });
    checkedShapes.set(statement, shape);
  }
  const { withEnd } = await shape;
  const values = valuesOf(statement, params);
  const shadows = tenantShadows(values.length + 1, values.length + 2);
  // Without RECURSIVE a query does not see its own name: each shadow's body reads the table itself.
  const text = withEnd === null ? `WITH ${shadows}\n${statement.text}` : `${statement.text.slice(0, withEnd)} ${shadows},${statement.text.slice(withEnd)}`;
  return asPgRows<Row>(await client.$queryRawUnsafe<Record<string, unknown>[]>(text, ...values, scope.businessId, scope.livemode));
}

/** The shadows of every tenant table, the business bound as $`business` and the environment as $`livemode` (the planner drops those a statement does not read). */
function tenantShadows(business: number, livemode: number): string {
  return [...TENANT_TABLES]
    .map((table) => {
      const owner = table === 'Business' ? `"id" = $${business}` : TENANT_MODELS.get(table)!.environment ? `"businessId" = $${business} AND "livemode" = $${livemode}` : `"businessId" = $${business}`;
      return `"${table}" AS NOT MATERIALIZED (SELECT * FROM "${table}" WHERE ${owner})`;
    })
    .join(',\n');
}

type Delegate = Record<string, (args?: unknown) => Promise<unknown>>;

/** A model's delegate whose every operation runs with `scopeArgs`. */
function scopedDelegate(prismaDelegate: () => Delegate, model: string, scope: TenantScope, observe: RowObserver | undefined, direct: DirectSql | undefined): Delegate {
  const out: Delegate = {};
  // Prisma's own delegate is made (by its client's proxy) only when a call needs the ORM.
  let delegate: Delegate | undefined;
  for (const operation of OPERATIONS) {
    out[operation] = (args?: unknown) => {
      let scoped: Args;
      try {
        scoped = scopeArgs(model, operation, args as Args, scope);
      } catch (err) {
        return Promise.reject(err); // as the query itself would fail: callers await
      }
      // A read by id or a plain insert as the scope's own SQL (direct-sql.ts), anything else through Prisma.
      const result = direct?.run(model, operation, scoped) ?? (delegate ??= prismaDelegate())[operation](scoped);
      if (!observe || !SINGLE_ROW.has(operation) || !observe.wants()) return result;
      return result.then((row) => {
        if (row && typeof row === 'object') observe.touch(model, row as { id?: unknown });
        return row;
      });
    };
  }
  return out;
}

/**
 * The client confined to one tenant: its model delegates apply `scopeArgs` to every call;
 * an interactive transaction hands its callback a client confined the same way. (A thin
 * wrapper rather than a Prisma client extension: the same rule at a fraction of the cost
 * per query.) Batch transactions and what would build another client are not available.
 */
function scopedClient(target: object, scope: TenantScope, observe: RowObserver | undefined, direct?: DirectSql): unknown {
  const delegates = new Map<string, Delegate>();
  // The proxy's own target is an empty object, not Prisma's client: on every property read, a
  // proxy checks what its trap answers against the target's own property, and Prisma's client,
  // a proxy itself, answers that through a trap of its own (about a microsecond a read).
  return new Proxy(Object.create(null) as object, {
    has: (_, prop) => Reflect.has(target, prop),
    get(_, prop) {
      if (typeof prop !== 'string') return Reflect.get(target, prop);
      const model = MODEL_OF_DELEGATE.get(prop);
      if (model) {
        let delegate = delegates.get(prop);
        if (!delegate) delegates.set(prop, (delegate = scopedDelegate(() => Reflect.get(target, prop) as Delegate, model, scope, observe, direct)));
        return delegate;
      }
      const value = Reflect.get(target, prop);
      if (prop === '$transaction') {
        return (fn: unknown, options?: unknown) => {
          if (typeof fn !== 'function') throw new TenantScopeViolation('batch transactions are not available through the tenant scope; pass a function');
          // A deadlock or serialization failure runs the whole transaction again, callback included.
          return retryConflicts(() => {
            // What an attempt touched counts once it commits: a rolled-back attempt touched nothing.
            const touched: [string, { id?: unknown; bookingId?: unknown }][] = [];
            const attempt: RowObserver | undefined = observe && { wants: () => observe.wants(), touch: (model, row) => void touched.push([model, row]) };
            const begin = (bound: () => DirectSql | undefined) => (target as PrismaClient).$transaction((tx) => fn(scopedClient(tx, scope, attempt, bound())), options as never);
            // On PostgreSQL the transaction's statements may run as direct SQL too, on its own connection.
            const committed: Promise<unknown> = direct ? direct.transaction(begin) : begin(() => undefined);
            return committed.then((result) => {
              for (const [model, row] of touched) observe!.touch(model, row);
              return result;
            });
          });
        };
      }
      if (prop === '$run') return (statement: TenantStatement<object, unknown>, params: object) => runTenantStatement(target as PrismaClient, scope, statement, params);
      if (prop === '$queueEventMessages') return (params: EventFanOut) => queueEventMessages(target as PrismaClient, scope, params, direct);
      if (prop === '$lockRow') return (model: string, id: string) => lockRow(target as PrismaClient, scope, model, id);
      if (prop === '$lockKey') {
        // Namespaced by the tenant, so two businesses never wait on each other's keys.
        return (key: string) => (target as PrismaClient).$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${scope.businessId}:${scope.livemode}:${key}`}, 0))::text`.then(() => undefined);
      }
      if (CLIENT_ONLY.has(prop) || RAW_SQL.has(prop)) throw new TenantScopeViolation(`${prop} is not available through the tenant scope`);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Lock one of the tenant's rows FOR UPDATE until the transaction ends (false: no such row of
 * the tenant). The statement names the business and environment itself: raw SQL is not
 * scoped otherwise.
 */
function lockRow(client: PrismaClient, scope: TenantScope, model: string, id: string): Promise<boolean> {
  const modelScope = TENANT_MODELS.get(model);
  if (!modelScope) return Promise.reject(new TenantScopeViolation(`${model} does not belong to a tenant`));
  const environment = modelScope.environment ? Prisma.sql` AND "livemode" = ${scope.livemode}` : Prisma.empty;
  return client
    .$queryRaw<{ id: string }[]>`SELECT "id" FROM ${Prisma.raw(`"${model}"`)} WHERE "id" = ${id} AND "businessId" = ${scope.businessId}${environment} FOR UPDATE`
    .then((rows) => rows.length === 1);
}

/** How one of the tenant's events fans out to webhook endpoints (src/db/sql/platform/queue-event-messages.sql). */
export interface EventFanOut {
  /** The event, just recorded by the tenant. */
  eventId: string;
  /** Only this endpoint of the tenant (a test send), or null: every subscribed one. */
  onlyEndpointId: string | null;
  /** A connected app receives the event when its grant holds one of these permissions (none: no app does). */
  appScopes: string[];
  /** The app the event is about (app.authorized, app.deauthorized), whose endpoints receive it whatever its connection's state; or null. */
  appId: string | null;
  /** The new messages' ids: a new message id (whm_...), then a number. */
  idPrefix: string;
}

/**
 * Queue the webhook messages of one of the tenant's events, in one statement: the tenant's own
 * endpoints, and those of the apps connected to it (whose messages are their owners'). The one
 * write of the scope that reaches another tenant's rows, and only this way: the statement is
 * fixed, and the event must be the scope's own (its business and environment are bound here).
 */
async function queueEventMessages(client: PrismaClient, scope: TenantScope, fanOut: EventFanOut, direct: DirectSql | undefined): Promise<number> {
  const values = valuesOf(queueEventMessagesStatement, { ...fanOut, businessId: scope.businessId, livemode: scope.livemode });
  const rows = direct
    ? (await direct.query({ text: queueEventMessagesStatement.text, values })).rows
    : await client.$queryRawUnsafe<Record<string, unknown>[]>(queueEventMessagesStatement.text, ...values);
  return Number(rows[0]?.queued ?? 0);
}

/** Locks a tenant's transaction may take (the only raw SQL that writes nothing but a lock). */
export interface TenantLocks {
  /** Lock the tenant's row of `model` FOR UPDATE until the transaction ends; false when the tenant has no such row. */
  $lockRow(model: string, id: string): Promise<boolean>;
  /** A transaction-scoped advisory lock on `key` within the tenant (serializes e.g. creations of one email). */
  $lockKey(key: string): Promise<void>;
}

/** A Prisma client that reaches one tenant's rows only. */
export type TenantDb = Omit<PrismaClient, '$extends' | '$use' | '$on' | '$connect' | '$disconnect' | '$queryRaw' | '$queryRawUnsafe' | '$executeRaw' | '$executeRawUnsafe' | '$queryRawTyped'> & TenantLocks & TenantOutbox & {
  /** A named tenant statement (src/db/sql/tenant/*.sql) over the tenant's rows only, e.g. a report's GROUP BY; the scope supplies the business and environment. */
  $run<Params extends object, Row>(statement: TenantStatement<Params, Row>, params: Params): Promise<Row[]>;
};

/** The outbox's fan-out (the tenant's client has it, in a transaction too). */
export interface TenantOutbox {
  /** Queue the webhook messages of an event the tenant just recorded; answers how many. */
  $queueEventMessages(fanOut: EventFanOut): Promise<number>;
}

/** The outbox's fan-out, in a transaction of a TenantDb too (its callback's client has it at run time). */
export const tenantOutbox = (db: TenantDb | TenantTx): TenantOutbox => db as unknown as TenantOutbox;

/** The client handed to `$transaction` callbacks of a TenantDb. */
export type TenantTx = Prisma.TransactionClient;

/** The tenant's locks, in a transaction of a TenantDb too (its callback's client has them at run time). */
export const tenantLocks = (db: TenantDb | TenantTx): TenantLocks => db as unknown as TenantLocks;

/** Scoped clients, one per tenant, kept for the most recently used tenants. */
export function tenantDbFactory(prisma: PrismaClient, observe?: RowObserver, options: { direct?: DirectSql; capacity?: number } = {}) {
  const capacity = options.capacity ?? 1_000;
  const cache = new Map<string, TenantDb>();
  // The most recently used tenant (the map's last entry): a run of requests of one tenant, the
  // common case, finds it without a key made and the map reordered for every request.
  let recent: { businessId: string; livemode: boolean; db: TenantDb } | null = null;
  return function tenantDb(scope: TenantScope): TenantDb {
    if (recent !== null && recent.businessId === scope.businessId && recent.livemode === scope.livemode) return recent.db;
    const key = `${scope.businessId}:${scope.livemode}`;
    let db = cache.get(key);
    if (db) {
      cache.delete(key); // most recent last
    } else {
      db = scopedClient(prisma, { businessId: scope.businessId, livemode: scope.livemode }, observe, options.direct) as TenantDb;
      if (cache.size >= capacity) cache.delete(cache.keys().next().value!);
    }
    cache.set(key, db);
    recent = { businessId: scope.businessId, livemode: scope.livemode, db };
    return db;
  };
}

export type TenantDbFactory = ReturnType<typeof tenantDbFactory>;
