// The tenant scope's exact SQL on PostgreSQL, for the statements every request runs: a row
// by its id, and new rows. Prisma builds and compiles a plan for each call (about 1 ms of CPU
// for a create); the same statement written once per model costs a few tens of µs. Only the
// tenant scope (tenant-db.ts) calls this, with conditions and rows it has already confined to
// one business and environment; anything this does not cover goes through Prisma as before.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { getDatamodel } from '../generated/pothos-prisma-types.ts';

interface Field {
  name: string;
  kind: string;
  type: string;
  isList: boolean;
  isId: boolean;
  isUpdatedAt: boolean;
  hasDefaultValue: boolean;
  relationName?: string;
  relationFromFields?: string[];
}

export const DATAMODEL = getDatamodel().datamodel.models as unknown as Record<string, { fields: Field[] }>;

/** Each model's own columns (no relations), in the datamodel's order: the order Prisma returns them in. */
export const SCALAR_FIELDS: ReadonlyMap<string, readonly Field[]> = new Map(
  Object.entries(DATAMODEL).map(([name, m]) => [name, m.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum')]),
);
export const COLUMN_NAMES: ReadonlyMap<string, ReadonlySet<string>> = new Map([...SCALAR_FIELDS].map(([model, fields]) => [model, new Set(fields.map((f) => f.name))]));

/** Column types whose values pg cannot send or read back as Prisma does; a model with one is left to Prisma. */
const UNSUPPORTED_TYPES = new Set(['BigInt', 'Decimal', 'Bytes']);

export interface DirectSql {
  /** The row of `model` that `where` (equalities only) finds; only the `fields` given, else every scalar field. */
  byId(model: string, where: Record<string, unknown>, fields?: string[]): Promise<Record<string, unknown> | null>;
  /**
   * findMany / findFirst whose arguments are plain enough to be written exactly (see
   * `compileRead`); undefined when they are not, for Prisma to run.
   */
  find(model: string, args: Record<string, unknown>, first: boolean): Promise<unknown> | undefined;
  /** True when `rows` are plain values of `model`'s own columns that `insert` writes exactly as Prisma would. */
  canInsert(model: string, rows: readonly Record<string, unknown>[]): boolean;
  /** INSERT `rows`; with `returning`, each new row as Prisma's `create` returns it. */
  insert(model: string, rows: readonly Record<string, unknown>[], returning: boolean): Promise<{ rows: Record<string, unknown>[]; count: number }>;
  /**
   * Run `begin`, which starts a Prisma interactive transaction; inside its callback,
   * `bound()` is the direct SQL of that transaction's own connection (undefined if it could
   * not be told), so direct statements and Prisma's commit or roll back together.
   */
  transaction<T>(begin: (bound: () => DirectSql | undefined) => Promise<T>): Promise<T>;
  /** Statements run so far (for tests that check this path is taken). */
  readonly statements: number;
}

/** Prisma stores `DateTime` as `timestamp(3)` in UTC; pg would read it in the process's time zone. */
const TIMESTAMP_OID = 1114;
const utcTimestamp = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
const TYPES = { getTypeParser: (oid: number, format?: string) => (oid === TIMESTAMP_OID ? utcTimestamp : pg.types.getTypeParser(oid, format as never)) };

/**
 * One fixed statement of the platform's own (no tenant's request: e.g. the event relay's
 * claim) on the pool of `directSqlPool`, its rows read as Prisma's `$queryRaw` reads them
 * (timestamps in UTC), without Prisma compiling a plan for each call.
 */
export async function platformQuery<T>(pool: pg.Pool, text: string, values: unknown[] = []): Promise<T[]> {
  return (await pool.query(text, values)).rows as T[];
}

/** The connection a Prisma transaction begun in this async context draws from the pool. */
const transactionConnection = new AsyncLocalStorage<{ client?: pg.PoolClient }>();

/**
 * A pool whose connections, when a Prisma interactive transaction begun through
 * `DirectSql.transaction` takes one (the driver adapter asks the pool it was given), are
 * made known to that transaction's direct SQL.
 */
export function directSqlPool(config: pg.PoolConfig): pg.Pool {
  // Every statement on the pool reads values as Prisma does (TYPES): the tenant scope's, the
  // event relay's and the webhook worker's. Set once here rather than with each statement (pg
  // copies a statement's settings); Prisma's adapter passes its own parsers with its queries.
  const pool = new pg.Pool({ ...config, types: TYPES as never });
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  pool.connect = ((callback?: unknown) => {
    if (callback) return connect(callback); // pool.query's own checkout
    const slot = transactionConnection.getStore();
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      if (slot && !slot.client) slot.client = client;
      return client;
    });
  }) as typeof pool.connect;
  return pool;
}

export function postgresDirectSql(pool: pg.Pool): DirectSql {
  const statements = new Map<string, string>();
  const counter = { statements: 0 };
  const run = (on: pg.Pool | pg.PoolClient) => async (text: string, values: unknown[]) => {
    counter.statements++;
    const result = await on.query(text, values);
    return { rows: result.rows as Record<string, unknown>[], count: result.rowCount ?? 0 };
  };

  function bind(query: ReturnType<typeof run>): DirectSql {
    return {
      async byId(model, where, only) {
        const fields = Object.keys(where);
        const key = `select|${model}|${fields.join(',')}|${only?.join(',') ?? '*'}`;
        let sql = statements.get(key);
        if (!sql) {
          const columns = SCALAR_FIELDS.get(model)!.filter((f) => !only || only.includes(f.name)).map((f) => `"${f.name}"`).join(', ');
          sql = `SELECT ${columns} FROM "${model}" WHERE ${fields.map((f, i) => `"${f}" = $${i + 1}`).join(' AND ')} LIMIT 1`;
          statements.set(key, sql);
        }
        return (await query(sql, fields.map((f) => where[f]))).rows[0] ?? null;
      },
      find(model, args, first) {
        const read = compileRead(model, args, first);
        if (!read) return undefined;
        return query(read.sql, read.values).then((r) => (first ? (r.rows[0] ?? null) : r.rows));
      },
      canInsert,
      async insert(model, rows, returning) {
        const now = new Date();
        const fields = SCALAR_FIELDS.get(model)!;
        // Prisma's own defaults are written by the client (the clock and @updatedAt); the database's are left to it.
        const columns = fields.filter((f) => rows.some((r) => r[f.name] !== undefined) || (f.type === 'DateTime' && (f.hasDefaultValue || f.isUpdatedAt)));
        const values: unknown[] = [];
        const tuples = rows.map((row) => {
          const placeholders = columns.map((f) => {
            const value = row[f.name];
            if (value === undefined && !(f.type === 'DateTime' && (f.hasDefaultValue || f.isUpdatedAt))) return 'DEFAULT';
            values.push(toParameter(f, value === undefined ? now : value));
            return `$${values.length}`;
          });
          return `(${placeholders.join(', ')})`;
        });
        const returns = returning ? ` RETURNING ${fields.map((f) => `"${f.name}"`).join(', ')}` : '';
        return query(`INSERT INTO "${model}" (${columns.map((f) => `"${f.name}"`).join(', ')}) VALUES ${tuples.join(', ')}${returns}`, values);
      },
      transaction: (begin) => transactionConnection.run({}, () => begin(() => {
        const client = transactionConnection.getStore()?.client;
        return client ? bind(run(client)) : undefined;
      })),
      get statements() {
        return counter.statements;
      },
    };
  }
  return bind(run(pool));
}

function canInsert(model: string, rows: readonly Record<string, unknown>[]): boolean {
  const columns = COLUMN_NAMES.get(model);
  const fields = SCALAR_FIELDS.get(model);
  if (!columns || !fields || rows.length === 0 || fields.some((f) => UNSUPPORTED_TYPES.has(f.type))) return false;
  for (const row of rows) {
    for (const key in row) {
      const value = row[key];
      if (value === undefined) continue;
      if (!columns.has(key)) return false;
      if (value instanceof Date && !isoYear(value)) return false;
      // Prisma's JSON null markers and other class instances are the ORM's to write.
      if (typeof value === 'object' && value !== null && !(value instanceof Date) && !Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) return false;
    }
  }
  return true;
}

/** A value as PostgreSQL reads it for the column's type: JSON as text, times as UTC ISO text. */
function toParameter(field: Field, value: unknown): unknown {
  if (value === null) return null;
  if (field.type === 'Json') return JSON.stringify(value);
  if (value instanceof Date) return value.toISOString(); // a timestamp(3) keeps the UTC wall time; the trailing Z is read for timestamptz
  return value;
}

const FIELD_BY_NAME = new Map([...SCALAR_FIELDS].map(([model, fields]) => [model, new Map(fields.map((f) => [f.name, f]))]));
const READ_ARGS = new Set(['where', 'orderBy', 'take', 'skip', 'select', 'include']);
const COMPARISONS: Record<string, string> = { lt: '<', lte: '<=', gt: '>', gte: '>=' };

/**
 * Each model's to-many relations: the related model and its column that holds this model's
 * id (every relation of the schema references an `id`).
 */
const TO_MANY: ReadonlyMap<string, ReadonlyMap<string, { model: string; column: string }>> = new Map(
  Object.entries(DATAMODEL).map(([model, { fields }]) => [
    model,
    new Map(
      fields.flatMap((field) => {
        if (field.kind !== 'object' || !field.isList || !FIELD_BY_NAME.get(model)?.get('id')?.isId) return [];
        const back = DATAMODEL[field.type]?.fields.find((f) => f.kind === 'object' && f.type === model && f.relationName === field.relationName && f.relationFromFields?.length);
        return back?.relationFromFields?.length === 1 ? [[field.name, { model: field.type, column: back.relationFromFields[0] }] as const] : [];
      }),
    ),
  ]),
);

/**
 * A read whose every argument has one obvious SQL meaning, the same as Prisma's: `where` of
 * equalities (null is IS NULL), `in`, `notIn`, `lt`/`lte`/`gt`/`gte`, `has` on a list, AND,
 * OR and NOT, and `some` / `none` of a to-many relation (EXISTS / NOT EXISTS of its rows, as
 * Prisma writes them); `orderBy` of the model's own columns; `take` and `skip` of whole
 * numbers; `select` of own columns. Null for anything else (other relation filters, cursors,
 * JSON filters, modes ...).
 */
function compileRead(model: string, args: Record<string, unknown>, first: boolean): { sql: string; values: unknown[] } | null {
  const fields = FIELD_BY_NAME.get(model);
  if (!fields || SCALAR_FIELDS.get(model)!.some((f) => UNSUPPORTED_TYPES.has(f.type))) return null;
  for (const key in args) if (args[key] !== undefined && !READ_ARGS.has(key)) return null;
  const values: unknown[] = [];
  const param = (field: Field, value: unknown) => {
    values.push(toParameter(field, value));
    return `$${values.length}`;
  };
  let aliases = 0;

  /** `where` of `table` (a model), its columns qualified by `alias`. */
  const condition = (table: string, alias: string, where: unknown): string | null => {
    const columns = FIELD_BY_NAME.get(table);
    if (!columns || where === null || typeof where !== 'object' || Array.isArray(where)) return null;
    const parts: string[] = [];
    for (const [key, value] of Object.entries(where as Record<string, unknown>)) {
      if (value === undefined) continue;
      if (key === 'AND' || key === 'OR' || key === 'NOT') {
        const list = Array.isArray(value) ? value : key !== 'OR' ? [value] : null;
        if (!list) return null;
        const inner = list.map((w) => condition(table, alias, w));
        if (inner.some((c) => c === null)) return null;
        // NOT of an empty condition is left to Prisma, which gives it its own meaning.
        if (key === 'NOT' && inner.includes('TRUE')) return null;
        if (key === 'AND') parts.push(...(inner as string[]));
        else if (key === 'NOT') parts.push(...inner.map((c) => `(NOT (${c}))`));
        else parts.push(inner.length ? `(${inner.map((c) => `(${c})`).join(' OR ')})` : 'FALSE');
        continue;
      }
      const field = columns.get(key);
      if (!field) {
        // A to-many relation's rows: some of them, or none of them, match.
        const relation = TO_MANY.get(table)?.get(key);
        if (!relation || value === null || typeof value !== 'object') return null;
        for (const [op, filter] of Object.entries(value as Record<string, unknown>)) {
          if (filter === undefined) continue;
          if (op !== 'some' && op !== 'none') return null;
          const inner = `"t${aliases++}"`;
          const match = condition(relation.model, inner, filter);
          if (match === null) return null;
          parts.push(`${op === 'none' ? 'NOT ' : ''}EXISTS (SELECT 1 FROM "${relation.model}" AS ${inner} WHERE ${match} AND ${inner}."${relation.column}" = ${alias}."id")`);
        }
        continue;
      }
      if (field.type === 'Json') return null;
      const column = `${alias}."${key}"`;
      if (value === null) parts.push(`${column} IS NULL`);
      else if (isScalarValue(value)) {
        if (field.isList) return null;
        parts.push(`${column} = ${param(field, value)}`);
      } else if (typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype) {
        for (const [op, operand] of Object.entries(value as Record<string, unknown>)) {
          if (operand === undefined) continue;
          if ((op === 'in' || op === 'notIn') && Array.isArray(operand) && !field.isList && operand.every(isScalarValue)) {
            const list = () => param({ ...field, type: 'List' }, operand.map((v) => toParameter(field, v)));
            // NOT IN as Prisma writes it: a NULL column is in no list, nor outside one.
            if (op === 'in') parts.push(operand.length ? `${column} = ANY(${list()})` : 'FALSE');
            else parts.push(operand.length ? `${column} <> ALL(${list()})` : 'TRUE');
          }
          else if (op in COMPARISONS && isScalarValue(operand) && !field.isList) parts.push(`${column} ${COMPARISONS[op]} ${param(field, operand)}`);
          else if (op === 'has' && field.isList && isScalarValue(operand)) parts.push(`${param(field, operand)} = ANY(${column})`);
          else return null;
        }
      } else return null;
    }
    return parts.length ? parts.join(' AND ') : 'TRUE';
  };

  const where = args.where === undefined ? 'TRUE' : condition(model, `"${model}"`, args.where);
  if (where === null) return null;

  let order = '';
  if (args.orderBy !== undefined) {
    const terms: string[] = [];
    for (const entry of Array.isArray(args.orderBy) ? args.orderBy : [args.orderBy]) {
      if (entry === null || typeof entry !== 'object') return null;
      const pairs = Object.entries(entry as Record<string, unknown>);
      if (pairs.length !== 1) return null; // Prisma takes one field per object
      const [name, direction] = pairs[0];
      const field = fields.get(name);
      if (!field || field.type === 'Json' || (direction !== 'asc' && direction !== 'desc')) return null;
      terms.push(`"${name}" ${direction === 'asc' ? 'ASC' : 'DESC'}`);
    }
    if (terms.length) order = ` ORDER BY ${terms.join(', ')}`;
  }

  const take = args.take;
  const skip = args.skip;
  if (take !== undefined && !(Number.isInteger(take) && (take as number) >= 0)) return null;
  if (skip !== undefined && !(Number.isInteger(skip) && (skip as number) >= 0)) return null;
  if (first && take !== undefined) return null;
  const limit = first ? 1 : (take as number | undefined);

  let columns = SCALAR_FIELDS.get(model)!;
  const include = args.include;
  if (include !== undefined && !(include !== null && typeof include === 'object' && Object.keys(include).length === 0)) return null;
  if (args.select !== undefined) {
    const select = args.select as Record<string, unknown> | null;
    if (select === null || typeof select !== 'object') return null;
    const names = Object.keys(select);
    if (!names.length || !names.every((n) => select[n] === true && fields.has(n))) return null;
    columns = columns.filter((f) => names.includes(f.name));
  }
  const sql = `SELECT ${columns.map((f) => `"${f.name}"`).join(', ')} FROM "${model}" WHERE ${where}${order}${limit !== undefined ? ` LIMIT ${limit}` : ''}${skip ? ` OFFSET ${skip}` : ''}`;
  return { sql, values };
}

function isScalarValue(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || (value instanceof Date && isoYear(value));
}

/**
 * A time whose ISO text PostgreSQL reads: years 1 to 9999 (`toISOString` writes others as
 * `+010000-...`, which it refuses). Any other time is left to Prisma, which writes it its own way.
 */
function isoYear(value: Date): boolean {
  const year = value.getUTCFullYear();
  return year >= 1 && year <= 9999;
}
