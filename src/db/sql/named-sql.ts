// Named SQL statements: the hand-tuned statements of src/db/sql/<kind>/*.sql, typed by
// `npm run sql:generate` (src/db/sql/generated/<kind>.ts). A tenant statement runs through
// the tenant scope only (`$run` of tenant-db.ts), which supplies the business and environment
// itself; a platform statement (the outbox claims) runs through `platformSql`, outside any tenant.
import type { Database } from '../database.ts';
import { Prisma } from '../../generated/prisma/client.ts';

export interface NamedStatement<Params, Row> {
  readonly kind: 'tenant' | 'platform';
  /** The export's name, from the file's. */
  readonly name: string;
  /** The file, relative to src/db/sql. */
  readonly file: string;
  /** The parameters' names, in the order of $1, $2, ... */
  readonly params: readonly string[];
  /** Each column's runtime type as declared (number, string, boolean, Date, json, array; `?` when it may be null). */
  readonly columns: Readonly<Record<string, string>>;
  readonly text: string;
  /** Types only: what the statement takes and returns. */
  readonly types?: { params: Params; row: Row };
}

export interface TenantStatement<Params, Row> extends NamedStatement<Params, Row> {
  readonly kind: 'tenant';
}

export interface PlatformStatement<Params, Row> extends NamedStatement<Params, Row> {
  readonly kind: 'platform';
}

type Declaration = Omit<NamedStatement<unknown, unknown>, 'kind' | 'types'>;

export const tenantStatement = <Params, Row>(d: Declaration): TenantStatement<Params, Row> => Object.freeze({ ...d, kind: 'tenant' as const });
export const platformStatement = <Params, Row>(d: Declaration): PlatformStatement<Params, Row> => Object.freeze({ ...d, kind: 'platform' as const });

/** The values of $1, $2, ... from the named parameters (every one must be given). */
export function valuesOf(statement: NamedStatement<unknown, unknown>, params: object): unknown[] {
  return statement.params.map((name) => {
    const value = (params as Record<string, unknown>)[name];
    if (value === undefined) throw new TypeError(`${statement.file}: parameter ${name} is missing`);
    return value;
  });
}

/**
 * Rows as Prisma's raw queries return them, made the same as node-postgres's (which the
 * generated types describe): int8 and numeric as strings rather than BigInt and Decimal.
 */
export function asPgRows<Row>(rows: Record<string, unknown>[]): Row[] {
  for (const row of rows) {
    for (const key in row) {
      const value = row[key];
      if (typeof value === 'bigint' || Prisma.Decimal.isDecimal(value)) row[key] = String(value);
    }
  }
  return rows as Row[];
}

/**
 * The platform's own statements (no tenant's request). On PostgreSQL straight on the pool
 * Prisma's adapter draws on (its values read as Prisma reads them, see directSqlPool): through
 * the ORM a raw statement costs several times its pg cost, and the claims run every few
 * deliveries. On the embedded database through Prisma's raw queries.
 */
export function platformSql(db: Pick<Database, 'pool' | 'prisma'>) {
  const pool = db.pool;
  return {
    async run<Params extends object, Row>(statement: PlatformStatement<Params, Row>, params: Params): Promise<Row[]> {
      if (statement.kind !== 'platform') throw new TypeError(`${statement.file} is not a platform statement`);
      const values = valuesOf(statement, params);
      if (pool) return (await pool.query(statement.text, values)).rows as Row[];
      return asPgRows<Row>(await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(statement.text, ...values));
    },
  };
}

export type PlatformSql = ReturnType<typeof platformSql>;
