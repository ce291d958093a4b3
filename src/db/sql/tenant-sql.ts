// What a tenant's named SQL may say, decided on the statement as PostgreSQL's own parser reads
// it (libpg-query: the server's parser compiled to WebAssembly), not on its text. The tenant
// scope (tenant-db.ts) runs a statement only after this check, once per statement, with every
// tenant table shadowed by the tenant's rows; what could step around the shadows is refused.

/** Relations of the server's catalog a tenant statement may read: they hold no tenant's rows. */
const CATALOG_RELATIONS = new Set(['pg_timezone_names']);

/**
 * Functions a tenant statement may call (as `name` or `pg_catalog.name`): aggregates and
 * arithmetic on what it reads. Anything else (SQL run from text, settings, files, other
 * schemas' functions) is refused; a report that needs another function adds it here.
 */
const FUNCTIONS = new Set([
  'count', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'array_agg', 'row_number',
  'generate_series', 'unnest', 'date_trunc', 'date_part', 'extract', 'timezone', 'now', 'round', 'floor', 'ceil', 'abs',
  // The project's own, reading no table (prisma/migrations/*_report_buckets).
  'report_buckets',
]);

/** Casts to types that look objects up by name in the catalog. */
const CATALOG_TYPES = /^reg[a-z]*$/;

/** Statements that write: refused wherever they stand (a WITH query included). */
const WRITES = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

export interface TenantStatementShape {
  /** Where the statement's own top-level WITH keyword ends (UTF-16 index), for the shadows to join it; null without one. */
  withEnd: number | null;
}

type Node = Record<string, unknown>;

let parser: Promise<typeof import('libpg-query')> | undefined;

/**
 * Checks one statement for the tenant scope: one SELECT (no write anywhere in it, no row
 * locks, no SELECT INTO), whose relations are the tenant tables in `tables` (named by
 * themselves, never through a schema), its own WITH queries in scope, or a harmless catalog
 * view, and whose functions are the ones above. Throws the first problem as an Error.
 */
export async function checkTenantStatement(text: string, tables: ReadonlySet<string>): Promise<TenantStatementShape> {
  const { parse } = await (parser ??= import('libpg-query'));
  let tree: { stmts?: { stmt?: object }[] };
  try {
    tree = await parse(text);
  } catch (err) {
    throw new Error(`it does not parse: ${(err as Error).message}`);
  }
  if (tree.stmts?.length !== 1) throw new Error('a named statement is one statement');
  const select = (tree.stmts[0].stmt as Node | undefined)?.SelectStmt as Node | undefined;
  if (!select) throw new Error('a tenant statement is one SELECT');
  const walker = new Walker(tables);
  walker.select(select, new Set());
  const withClause = select.withClause as Node | undefined;
  if (!withClause) return { withEnd: null };
  for (const cte of (withClause.ctes as Node[]) ?? []) {
    const name = (cte.CommonTableExpr as Node).ctename as string;
    if (tables.has(name)) throw new Error(`its WITH query "${name}" is named like a table`);
  }
  // Locations are byte offsets into the text; the keyword WITH is four bytes.
  const withEnd = Buffer.from(text).subarray(0, (withClause.location as number) + 4).toString().length;
  return { withEnd };
}

class Walker {
  constructor(private readonly tables: ReadonlySet<string>) {}

  /** A SELECT: its WITH queries each see the ones before them (WITH RECURSIVE is refused), the rest sees them all. */
  select(stmt: Node, outer: ReadonlySet<string>): void {
    if ((stmt.lockingClause as unknown[] | undefined)?.length) throw new Error('a tenant statement locks no rows');
    if (stmt.intoClause) throw new Error('a tenant statement creates no table');
    let visible = outer;
    const withClause = stmt.withClause as Node | undefined;
    if (withClause) {
      if (withClause.recursive) throw new Error('a tenant statement has no WITH RECURSIVE');
      for (const item of (withClause.ctes as Node[]) ?? []) {
        const cte = item.CommonTableExpr as Node;
        this.visit(cte.ctequery, visible);
        visible = new Set([...visible, cte.ctename as string]);
      }
    }
    for (const [key, value] of Object.entries(stmt)) if (key !== 'withClause') this.visit(value, visible);
  }

  visit(node: unknown, visible: ReadonlySet<string>): void {
    if (Array.isArray(node)) {
      for (const item of node) this.visit(item, visible);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Node)) {
      if (WRITES.has(key)) throw new Error('a tenant statement writes nothing');
      if (key === 'SelectStmt') {
        this.select(value as Node, visible);
        continue;
      }
      if (key === 'RangeVar') this.relation(value as Node, visible);
      else if (key === 'FuncCall') this.function((value as Node).funcname as Node[]);
      else if (key === 'TypeCast') this.cast(value as Node);
      this.visit(value, visible);
    }
  }

  private relation(rangeVar: Node, visible: ReadonlySet<string>): void {
    const name = rangeVar.relname as string;
    if (rangeVar.schemaname || rangeVar.catalogname) throw new Error(`it names "${name}" through a schema: name a table by itself`);
    if (visible.has(name) || this.tables.has(name) || CATALOG_RELATIONS.has(name)) return;
    throw new Error(`"${name}" is not a tenant table`);
  }

  private function(names: Node[]): void {
    const parts = names.map((n) => (n.String as Node).sval as string);
    const [schema, name] = parts.length === 1 ? [null, parts[0]] : parts;
    if ((schema !== null && schema !== 'pg_catalog') || parts.length > 2 || !FUNCTIONS.has(name)) {
      throw new Error(`it calls ${parts.join('.')}(), which a tenant statement may not`);
    }
  }

  private cast(typeCast: Node): void {
    const names = ((typeCast.typeName as Node).names as Node[]).map((n) => (n.String as Node).sval as string);
    if (CATALOG_TYPES.test(names[names.length - 1])) throw new Error(`it casts to ${names.join('.')}, which looks objects up in the catalog`);
  }
}
