// Types for the named SQL files (src/db/sql/tenant/*.sql, src/db/sql/platform/*.sql), asked of
// PostgreSQL itself: each file is described over the wire protocol (Parse + Describe, through
// @pgtyped/query) against a database with the current migrations, and the parameter and
// column types become the TypeScript of src/db/sql/generated/<kind>.ts. Prisma's TypedSQL does
// the same, but only through the native schema engine, which cannot be installed here.
//
// A file is one statement with TypedSQL's annotations:
//   -- @param {DateTime} $1:from What it is      (a name for each $n, its type checked)
//   -- @notNull period_start period_end          (computed columns PostgreSQL cannot vouch for)
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { AsyncQueue } from '@pgtyped/wire';
import { getTypes, startup, type MappableType } from '@pgtyped/query';
import { TENANT_TABLES } from '../tenant-db.ts';
import { checkTenantStatement } from './tenant-sql.ts';

export const SQL_DIR = path.dirname(new URL(import.meta.url).pathname);
export const KINDS = ['tenant', 'platform'] as const;
export type StatementKind = (typeof KINDS)[number];

export interface NamedSqlFile {
  /** The export's name: the file's, in camelCase (`revenue-buckets.sql` → `revenueBuckets`). */
  name: string;
  /** Relative to src/db/sql (`tenant/revenue-buckets.sql`). */
  file: string;
  text: string;
  params: { name: string; annotated: string; doc: string }[];
  notNull: Set<string>;
}

export async function readNamedSql(kind: StatementKind, dir = SQL_DIR): Promise<NamedSqlFile[]> {
  const names = (await readdir(path.join(dir, kind))).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(names.map(async (f) => parseFile(`${kind}/${f}`, await readFile(path.join(dir, kind, f), 'utf8'))));
}

function parseFile(file: string, content: string): NamedSqlFile {
  const base = path.basename(file, '.sql');
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(base)) throw new Error(`${file}: name it in kebab-case`);
  const params: NamedSqlFile['params'] = [];
  const notNull = new Set<string>();
  for (const line of content.split('\n')) {
    const param = /^--\s*@param\s+\{([\w[\]]+)\}\s+\$(\d+):(\w+)\s*(.*)$/.exec(line);
    if (param) {
      const at = Number(param[2]) - 1;
      if (params[at]) throw new Error(`${file}: $${at + 1} is annotated twice`);
      params[at] = { annotated: param[1], name: param[3], doc: param[4].trim() };
    }
    const columns = /^--\s*@notNull\s+(.*)$/.exec(line);
    if (columns) for (const c of columns[1].trim().split(/[\s,]+/)) notNull.add(c);
  }
  for (let i = 0; i < params.length; i++) if (!params[i]) throw new Error(`${file}: $${i + 1} has no @param annotation`);
  return { name: base.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()), file, text: content.trimEnd(), params, notNull };
}

/** A value's JavaScript type as the runners return it (node-postgres's text parsing: int8 and numeric as strings). */
const SCALARS: Record<string, { ts: string; annotation: string }> = {
  int2: { ts: 'number', annotation: 'Int' },
  int4: { ts: 'number', annotation: 'Int' },
  int8: { ts: 'string', annotation: 'BigInt' },
  float4: { ts: 'number', annotation: 'Float' },
  float8: { ts: 'number', annotation: 'Float' },
  numeric: { ts: 'string', annotation: 'Decimal' },
  bool: { ts: 'boolean', annotation: 'Boolean' },
  text: { ts: 'string', annotation: 'String' },
  varchar: { ts: 'string', annotation: 'String' },
  bpchar: { ts: 'string', annotation: 'String' },
  name: { ts: 'string', annotation: 'String' },
  timestamp: { ts: 'Date', annotation: 'DateTime' },
  timestamptz: { ts: 'Date', annotation: 'DateTime' },
  json: { ts: 'unknown', annotation: 'Json' },
  jsonb: { ts: 'unknown', annotation: 'Json' },
};

interface TsType {
  /** The TypeScript type (`'a' | 'b'` for an enum). */
  ts: string;
  /** Its runtime tag, which the drift test checks values against: number, string, boolean, Date, json, array. */
  tag: string;
  annotation: string;
}

function tsType(type: MappableType, where: string): TsType {
  if (typeof type !== 'string') {
    if ('enumValues' in type && type.enumValues) return { ts: type.enumValues.map((v) => `'${v}'`).join(' | '), tag: 'string', annotation: 'String' };
    if ('elementType' in type && type.elementType) {
      const element = tsType(type.elementType as MappableType, where);
      return { ts: `(${element.ts})[]`, tag: 'array', annotation: `${element.annotation}[]` };
    }
    type = type.name;
  }
  if (type.startsWith('_')) {
    const element = tsType(type.slice(1), where);
    return { ts: `${element.ts}[]`, tag: 'array', annotation: `${element.annotation}[]` };
  }
  const scalar = SCALARS[type];
  if (!scalar) throw new Error(`${where}: PostgreSQL type ${type} has no mapping here; cast it (::text, ::int, ::bigint)`);
  return { ...scalar, tag: scalar.ts === 'unknown' ? 'json' : scalar.ts };
}

export interface DescribedStatement extends NamedSqlFile {
  paramTypes: TsType[];
  columns: { name: string; type: TsType; nullable: boolean }[];
}

/** Connects to PostgreSQL at `url` over the wire protocol, for `describe`. */
export async function describer(url: string) {
  const u = new URL(url);
  const queue = new AsyncQueue();
  await startup(
    { host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username || 'postgres'), password: decodeURIComponent(u.password) || undefined, dbName: u.pathname.slice(1) },
    queue,
  );
  return {
    async describe(statement: NamedSqlFile): Promise<DescribedStatement> {
      const types = await getTypes({ query: statement.text, mapping: [], bindings: [] }, queue);
      if ('errorCode' in types) throw new Error(`${statement.file}: ${types.message}${types.hint ? ` (${types.hint})` : ''}`);
      const params = types.paramMetadata.params;
      if (params.length !== statement.params.length) throw new Error(`${statement.file}: the statement has ${params.length} parameters, the annotations name ${statement.params.length}`);
      const paramTypes = params.map((t, i) => {
        const type = tsType(t, `${statement.file} $${i + 1}`);
        const { annotated } = statement.params[i];
        if (annotated !== type.annotation) throw new Error(`${statement.file}: $${i + 1} is annotated {${annotated}}, PostgreSQL reads it as {${type.annotation}}`);
        return type;
      });
      const seen = new Set<string>();
      const columns = types.returnTypes.map((c) => {
        if (seen.has(c.returnName)) throw new Error(`${statement.file}: two columns are named ${c.returnName}`);
        seen.add(c.returnName);
        // A column read straight from a table knows whether it is NOT NULL; a computed one does not.
        return { name: c.returnName, type: tsType(c.type, `${statement.file} column ${c.returnName}`), nullable: c.nullable !== false && !statement.notNull.has(c.returnName) };
      });
      for (const c of statement.notNull) if (!seen.has(c)) throw new Error(`${statement.file}: @notNull names ${c}, which it does not return`);
      return { ...statement, paramTypes, columns };
    },
    close: () => queue.socket.end(),
  };
}

const pascal = (name: string) => name[0].toUpperCase() + name.slice(1);

/** The generated module of one kind's statements. */
export function emitModule(kind: StatementKind, statements: DescribedStatement[]): string {
  const define = kind === 'tenant' ? 'tenantStatement' : 'platformStatement';
  const out = [
    `// Generated by \`npm run sql:generate\` from src/db/sql/${kind}/*.sql (types described by PostgreSQL): do not edit.`,
    `import { ${define} } from '../named-sql.ts';`,
  ];
  for (const s of statements) {
    const type = pascal(s.name);
    out.push('');
    out.push(`/** Parameters of ${s.file}. */`);
    if (s.params.length === 0) out.push(`export type ${type}Params = Record<string, never>;`);
    else {
      out.push(`export interface ${type}Params {`);
      s.params.forEach((p, i) => out.push(`${p.doc ? `  /** ${p.doc} */\n` : ''}  ${p.name}: ${s.paramTypes[i].ts};`));
      out.push('}');
    }
    out.push('');
    out.push(`/** A row of ${s.file}. */`);
    out.push(`export interface ${type}Row {`);
    for (const c of s.columns) out.push(`  ${JSON.stringify(c.name)}: ${c.type.ts}${c.nullable ? ' | null' : ''};`);
    out.push('}');
    out.push('');
    out.push(`export const ${s.name} = ${define}<${type}Params, ${type}Row>({`);
    out.push(`  name: ${JSON.stringify(s.name)},`);
    out.push(`  file: ${JSON.stringify(s.file)},`);
    out.push(`  params: ${JSON.stringify(s.params.map((p) => p.name))},`);
    out.push(`  columns: { ${s.columns.map((c) => `${JSON.stringify(c.name)}: '${c.type.tag}${c.nullable ? '?' : ''}'`).join(', ')} },`);
    out.push(`  text: ${JSON.stringify(s.text)},`);
    out.push('});');
  }
  return `${out.join('\n')}\n`;
}

export const generatedPath = (kind: StatementKind, dir = SQL_DIR) => path.join(dir, 'generated', `${kind}.ts`);

/**
 * Every kind's module as it should be, described by the database at `url` (which must have
 * the current migrations): path → content. Tenant statements must pass the scope's check.
 */
export async function generateNamedSql(url: string, dir = SQL_DIR): Promise<Map<string, string>> {
  const db = await describer(url);
  try {
    const modules = new Map<string, string>();
    for (const kind of KINDS) {
      const files = await readNamedSql(kind, dir);
      const described: DescribedStatement[] = [];
      for (const file of files) {
        if (kind === 'tenant') {
          await checkTenantStatement(file.text, TENANT_TABLES).catch((err: Error) => {
            throw new Error(`${file.file}: ${err.message}`);
          });
        }
        described.push(await db.describe(file));
      }
      modules.set(generatedPath(kind, dir), emitModule(kind, described));
    }
    return modules;
  } finally {
    db.close();
  }
}
