// `npm run db:export -- --out <file.sql>`: the embedded database (DATA_DIR) as a plain SQL
// dump that `psql` loads into an empty PostgreSQL database. The server must be stopped: the
// directory's lock is taken as the server takes it.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DatabaseLockedError } from './database.ts';
import { dumpEmbeddedDatabase } from './embedded-dump.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  if (!values.out) throw new UsageError('usage: npm run db:export -- --out <file.sql>');
  if (process.env.DATABASE_URL) throw new UsageError('db:export dumps the embedded database; for PostgreSQL use pg_dump (docs/backup-and-restore.md)');
  const dataDir = process.env.DATA_DIR ?? './data';
  const sql = await dumpEmbeddedDatabase(dataDir);
  await writeFile(values.out, sql);
  console.log(`exported the embedded database in ${dataDir} to ${values.out} (${Math.ceil(sql.length / 1024)} KB)`);
  console.log(`load it into an empty PostgreSQL database: psql "$DATABASE_URL" -v ON_ERROR_STOP=1 --single-transaction -f ${values.out}`);
}

class UsageError extends Error {}

main().catch((err: unknown) => {
  console.error(err instanceof DatabaseLockedError || err instanceof UsageError ? err.message : err);
  process.exitCode = 1;
});
