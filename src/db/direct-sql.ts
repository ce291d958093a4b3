// The tenant scope's exact SQL for the statements every request runs: a row by its id, and new
// rows. Prisma 7.10 caches its query plans (an LRU keyed by the parameterized query; createMany
// is never cached), yet a cached findUnique by id or create still costs about 200–250 µs more
// CPU than these statements, and a createMany (the audit record, a booking's webhook messages)
// about 600 µs more. Without them two targets are missed (2026-11-27, Node 24.21.0; numbers in
// bench/README.md, "Direct SQL, with and without"): GET /v1/vehicles/{id} at 0.21–0.34 of the
// baseline's throughput (target 0.6; 0.41–0.77 with them) and POST /v1/bookings at 0.27–0.39
// (target 0.4; 0.28–0.58 with them, met in 4 runs of 5; 0.34–0.50 when a transaction's inserts
// went through Prisma). Every other statement is Prisma's: the findMany/findFirst compiler this
// file also held decided no target and was removed.
//
// Only the tenant scope (tenant-db.ts) calls this, with arguments it has already confined to
// one business and environment; what `compileDirect` does not claim goes through Prisma. A
// statement is text and values, run by an executor: PostgreSQL's pool in the service
// (direct-sql-postgres.ts); test/direct-sql.property.test.ts runs the same statements on
// PGlite too and holds them equal to Prisma's answers on both engines.
import * as Enums from '../generated/prisma/enums.ts';
import { getDatamodel } from '../generated/pothos-prisma-types.ts';

interface Field {
  name: string;
  kind: string;
  type: string;
  isList: boolean;
  isId: boolean;
  isRequired: boolean;
  isUpdatedAt: boolean;
  hasDefaultValue: boolean;
  relationName?: string;
  relationFromFields?: string[];
}

export const DATAMODEL = getDatamodel().datamodel.models as unknown as Record<string, { fields: Field[] }>;

/** Each model's own columns (no relations), in the datamodel's order: the order Prisma returns them in. */
const SCALAR_FIELDS: ReadonlyMap<string, readonly Field[]> = new Map(
  Object.entries(DATAMODEL).map(([name, m]) => [name, m.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum')]),
);
const FIELD_BY_NAME = new Map([...SCALAR_FIELDS].map(([model, fields]) => [model, new Map(fields.map((f) => [f.name, f]))]));
const ENUM_VALUES = Enums as unknown as Record<string, Record<string, string> | undefined>;

/** Column types whose values pg reads back as Prisma does (enums too); a model with another is left to Prisma. */
const READ_AS_PRISMA = new Set(['String', 'Int', 'Boolean', 'DateTime', 'Json']);
const LIST_READ_AS_PRISMA = new Set(['String', 'Int', 'Boolean']);
const SUPPORTED_MODELS: ReadonlySet<string> = new Set(
  [...SCALAR_FIELDS].filter(([, fields]) => fields.every((f) => (f.kind === 'enum' ? !f.isList : f.isList ? LIST_READ_AS_PRISMA.has(f.type) : READ_AS_PRISMA.has(f.type)))).map(([model]) => model),
);

export interface SqlStatement {
  text: string;
  values: unknown[];
}
export interface SqlResult {
  rows: Record<string, unknown>[];
  count: number;
}
/** Runs one statement, its rows read as Prisma reads them: `timestamp` columns in UTC (`readTimestamp`), the rest as node-postgres and PGlite read them. */
export type SqlExecutor = (statement: SqlStatement) => Promise<SqlResult>;

/** Prisma stores `DateTime` as `timestamp(3)` in UTC; a driver would read it in the process's time zone. */
export const TIMESTAMP_OID = 1114;
export const readTimestamp = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);

/** A statement and how its result answers the operation: the row or null, the new row, or the count. */
export interface DirectStatement extends SqlStatement {
  answer: 'row or null' | 'new row' | 'count';
}

/**
 * The operation as one statement, when it is one this writes exactly as Prisma would; null
 * for Prisma to run it:
 * - `findUnique` of a row by its `id`, the `where` holding only equalities of its own text and
 *   boolean columns (the scope's owner among them), of the whole row or of own columns
 *   (`select: { column: true }`; `include: {}` is nothing);
 * - `create` of one row, `createMany` of rows, given only `data` of valid values of the
 *   model's own columns (`canInsert`).
 */
export function compileDirect(model: string, operation: string, args: Record<string, unknown>, now?: Date): DirectStatement | null {
  if (!SUPPORTED_MODELS.has(model)) return null;
  if (operation === 'findUnique') return compileReadById(model, args);
  if (operation !== 'create' && operation !== 'createMany') return null;
  for (const key in args) if (key !== 'data' && args[key] !== undefined) return null;
  if (operation === 'create' && Array.isArray(args.data)) return null;
  const rows = (Array.isArray(args.data) ? args.data : [args.data]) as Record<string, unknown>[];
  if (!canInsert(model, rows)) return null;
  return { ...insertStatement(model, rows, operation === 'create', now ?? new Date()), answer: operation === 'create' ? 'new row' : 'count' };
}

export interface DirectSql {
  /** The operation as exact SQL when `compileDirect` claims it; undefined for Prisma to run. */
  run(model: string, operation: string, args: Record<string, unknown>): Promise<unknown> | undefined;
  /**
   * Run `begin`, which starts a Prisma interactive transaction; inside its callback,
   * `bound()` is the direct SQL of that transaction's own connection (undefined if there is
   * none to be had), so direct statements and Prisma's commit or roll back together.
   */
  transaction<T>(begin: (bound: () => DirectSql | undefined) => Promise<T>): Promise<T>;
  /** A fixed statement of the scope's own (text and values), on the same connection (a transaction's, inside one). */
  query(statement: SqlStatement): Promise<SqlResult>;
  /** Statements run so far (for tests that check this path is taken). */
  readonly statements: number;
}

/** Finds, while a Prisma transaction begun by `begin` runs, the executor of its connection. */
export type TransactionExecutors = <T>(begin: (bound: () => SqlExecutor | undefined) => Promise<T>) => Promise<T>;

/** Direct SQL run by `execute`; inside Prisma's transactions only where `transactions` can tell their connection. */
export function directSql(execute: SqlExecutor, transactions?: TransactionExecutors): DirectSql {
  const counter = { statements: 0 };
  function bind(on: SqlExecutor): DirectSql {
    return {
      run(model, operation, args) {
        const statement = compileDirect(model, operation, args);
        if (!statement) return undefined;
        counter.statements++;
        return on(statement).then(({ rows, count }) => (statement.answer === 'count' ? { count } : statement.answer === 'new row' ? rows[0] : (rows[0] ?? null)));
      },
      query(statement) {
        counter.statements++;
        return on(statement);
      },
      transaction: (begin) =>
        transactions
          ? transactions((bound) =>
              begin(() => {
                const executor = bound();
                return executor ? bind(executor) : undefined;
              }),
            )
          : begin(() => undefined),
      get statements() {
        return counter.statements;
      },
    };
  }
  return bind(execute);
}

/** Each read's text by model, columns and selection; a selection is the client's choice, so the cache is bounded. */
const readTexts = new Map<string, string>();
const READ_TEXTS_MAX = 1_000;
/** Each model's last read by id: a run of the same read (a hot path's) finds its text at once. */
const lastReads = new Map<string, { columns: readonly string[]; only: readonly string[] | undefined; text: string }>();

function compileReadById(model: string, args: Record<string, unknown>): DirectStatement | null {
  const fields = FIELD_BY_NAME.get(model)!;
  const where = args.where as Record<string, unknown> | undefined;
  if (!where || typeof where !== 'object' || typeof where.id !== 'string' || !fields.get('id')?.isId) return null;
  let only: string[] | undefined;
  for (const key in args) {
    const value = args[key];
    if (key === 'where' || value === undefined) continue;
    // Pothos passes what a selection needs from relations; none is none.
    if (key === 'include' && isPlainObject(value) && Object.keys(value).length === 0) continue;
    if (key === 'select' && isPlainObject(value)) {
      only = Object.keys(value);
      if (only.length === 0 || !only.every((f) => value[f] === true && fields.has(f))) return null;
      continue;
    }
    return null;
  }
  const columns: string[] = [];
  const values: unknown[] = [];
  for (const key in where) {
    const value = where[key];
    if (value === undefined) continue; // as Prisma: an undefined condition is none
    const field = fields.get(key);
    if (!field || field.isList || field.kind !== 'scalar') return null;
    if (!(typeof value === 'string' && field.type === 'String') && !(typeof value === 'boolean' && field.type === 'Boolean')) return null;
    columns.push(key);
    values.push(value);
  }
  // The same read as the model's last (the same columns and selection): its text, without a key made.
  const last = lastReads.get(model);
  if (last !== undefined && sameNames(last.columns, columns) && (last.only === undefined ? only === undefined : only !== undefined && sameNames(last.only, only))) {
    return { text: last.text, values, answer: 'row or null' };
  }
  const key = `${model}|${columns.join(',')}|${only?.join(',') ?? '*'}`;
  let text = readTexts.get(key);
  if (!text) {
    // In the selection's order, else the datamodel's: the order of Prisma's answer's keys.
    const selected = only ?? SCALAR_FIELDS.get(model)!.map((f) => f.name);
    text = `SELECT ${selected.map((name) => `"${name}"`).join(', ')} FROM "${model}" WHERE ${columns.map((c, i) => `"${c}" = $${i + 1}`).join(' AND ')} LIMIT 1`;
    if (readTexts.size >= READ_TEXTS_MAX) readTexts.clear();
    readTexts.set(key, text);
  }
  lastReads.set(model, { columns, only, text });
  return { text, values, answer: 'row or null' };
}

const sameNames = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((name, i) => name === b[i]);

/**
 * True when `rows` hold only valid values of `model`'s own columns, every required column
 * without a default given: rows `insertStatement` writes as Prisma would. Anything else
 * (nested writes, JSON null markers, times as text, a value Prisma would refuse) is Prisma's.
 */
function canInsert(model: string, rows: readonly Record<string, unknown>[]): boolean {
  const fields = FIELD_BY_NAME.get(model);
  if (!fields || !SUPPORTED_MODELS.has(model) || rows.length === 0) return false;
  for (const row of rows) {
    if (!isPlainObject(row)) return false;
    for (const key in row) {
      const value = row[key];
      if (value === undefined) continue;
      const field = fields.get(key);
      if (!field || !isValidValue(field, value)) return false;
    }
    for (const field of fields.values()) {
      if (field.isRequired && !field.hasDefaultValue && !field.isUpdatedAt && row[field.name] === undefined) return false;
    }
  }
  return true;
}

function isValidValue(field: Field, value: unknown): boolean {
  // Prisma refuses null for a required column and a list, and asks for JsonNull or DbNull for JSON.
  if (value === null) return !field.isRequired && !field.isList && field.type !== 'Json';
  if (field.isList) return Array.isArray(value) && value.every((item) => isValidItem(field, item));
  if (field.type === 'Json') return isJsonValue(value);
  return isValidItem(field, value);
}

function isValidItem(field: Field, value: unknown): boolean {
  if (field.kind === 'enum') return typeof value === 'string' && Object.hasOwn(ENUM_VALUES[field.type] ?? {}, value);
  switch (field.type) {
    case 'String':
      return typeof value === 'string';
    case 'Int':
      return Number.isInteger(value) && (value as number) >= -(2 ** 31) && (value as number) < 2 ** 31;
    case 'Boolean':
      return typeof value === 'boolean';
    case 'DateTime':
      return value instanceof Date && isoYear(value);
    default:
      return false;
  }
}

/** A JSON document as Prisma writes it: a string, finite number, boolean, array or plain object. */
function isJsonValue(value: unknown): boolean {
  if (typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  return Array.isArray(value) || isPlainObject(value);
}

/** INSERT of `rows` (checked by `canInsert`); with `returning`, each new row as Prisma's `create` returns it. */
function insertStatement(model: string, rows: readonly Record<string, unknown>[], returning: boolean, now: Date): SqlStatement {
  const fields = SCALAR_FIELDS.get(model)!;
  // Prisma writes its own defaults from the client (the clock and @updatedAt); the database's are left to it.
  const byClock = (f: Field) => f.type === 'DateTime' && (f.hasDefaultValue || f.isUpdatedAt);
  const columns = fields.filter((f) => byClock(f) || rows.some((r) => r[f.name] !== undefined));
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    const placeholders = columns.map((f) => {
      const value = row[f.name];
      if (value === undefined && !byClock(f)) return 'DEFAULT';
      values.push(toParameter(f, value === undefined ? now : value));
      return `$${values.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  const returns = returning ? ` RETURNING ${fields.map((f) => `"${f.name}"`).join(', ')}` : '';
  return { text: `INSERT INTO "${model}" (${columns.map((f) => `"${f.name}"`).join(', ')}) VALUES ${tuples.join(', ')}${returns}`, values };
}

/** A value as PostgreSQL reads it for the column's type: JSON as text, times as UTC ISO text. */
function toParameter(field: Field, value: unknown): unknown {
  if (value === null) return null;
  if (field.type === 'Json') return JSON.stringify(value);
  if (value instanceof Date) return value.toISOString(); // a timestamp(3) keeps the UTC wall time; the trailing Z is read for timestamptz
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * A time whose ISO text PostgreSQL reads: years 1 to 9999 (`toISOString` writes others as
 * `+010000-...`, which it refuses). Any other time is left to Prisma, which writes it its own way.
 */
function isoYear(value: Date): boolean {
  const year = value.getUTCFullYear();
  return year >= 1 && year <= 9999;
}
