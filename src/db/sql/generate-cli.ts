// `npm run sql:generate` writes src/db/sql/generated/<kind>.ts from the named SQL files, with
// types PostgreSQL gives them: on a scratch database of the server at SQL_GENERATE_URL (by
// default the local one), made with the current migrations and dropped after.
// `npm run sql:generate -- --check` writes nothing and fails when a generated file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { applyMigrations } from '../migrate.ts';
import { generateNamedSql } from './generate.ts';

/** Generates on a new database of the server at `serverUrl`, dropped after. */
export async function generateOnScratchDatabase(serverUrl: string): Promise<Map<string, string>> {
  const name = `named_sql_${process.pid}_${randomBytes(3).toString('hex')}`;
  const server = new pg.Client({ connectionString: serverUrl });
  await server.connect();
  try {
    await server.query(`CREATE DATABASE "${name}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    try {
      await applyMigrations({ kind: 'postgres', url: url.toString() });
      return await generateNamedSql(url.toString());
    } finally {
      await server.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  } finally {
    await server.end();
  }
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const modules = await generateOnScratchDatabase(process.env.SQL_GENERATE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  let stale = 0;
  for (const [file, content] of modules) {
    const current = await readFile(file, 'utf8').catch(() => null);
    if (current === content) continue;
    const where = path.relative(process.cwd(), file);
    if (check) {
      stale++;
      console.error(`${where} is stale: run npm run sql:generate`);
    } else {
      await writeFile(file, content);
      console.log(`wrote ${where}`);
    }
  }
  if (stale) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
