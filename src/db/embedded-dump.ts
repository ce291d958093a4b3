// The embedded database (PGlite) as a plain SQL dump, made by pg_dump itself (PGlite's
// build of it, @electric-sql/pglite-tools), that `psql` loads into an empty PostgreSQL
// database: how a user of the default moves to PostgreSQL (docs/backup-and-restore.md).
import { pgDump } from '@electric-sql/pglite-tools/pg_dump';
import { openPGlite } from './database.ts';

/** The dump of the embedded database in `dataDir`, loadable by PostgreSQL 15 and later. */
export async function dumpEmbeddedDatabase(dataDir: string): Promise<string> {
  const embedded = await openPGlite(dataDir);
  try {
    // Ownership and grants name PGlite's own role, which the target server need not have.
    const dump = await pgDump({ pg: embedded.pglite, args: ['--no-owner', '--no-privileges'] });
    return forOlderServers(await dump.text());
  } finally {
    await embedded.close();
  }
}

/**
 * PGlite is PostgreSQL 18; its pg_dump opens with `SET transaction_timeout`, a setting
 * servers before 17 refuse, which would stop a load run with ON_ERROR_STOP. Nothing else in
 * the dump depends on the server's version (checked by test/backup-restore.test.ts on 15).
 */
function forOlderServers(sql: string): string {
  return sql.replace(/^SET transaction_timeout = 0;\n/m, '');
}
