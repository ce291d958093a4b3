// `npm run db:migrate` applies pending migrations; `npm run db:migrate -- --name <name>`
// first writes a new migration when schema.prisma changed (like `prisma migrate dev`).
// Target: PostgreSQL when DATABASE_URL is set, otherwise the embedded database in DATA_DIR.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DatabaseLockedError, openPGlite } from './database.ts';
import { applyMigrations, createMigration, defaultMigrationPaths, type MigrationTarget } from './migrate.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { name: { type: 'string' } } });
  const url = process.env.DATABASE_URL;
  if (url) {
    console.log(`database: PostgreSQL ${redact(url)}`);
    await migrate({ kind: 'postgres', url }, values.name);
    return;
  }
  const dataDir = process.env.DATA_DIR ?? './data';
  console.log(`database: embedded (PGlite) in ${dataDir}`);
  const embedded = await openPGlite(dataDir);
  try {
    await migrate({ kind: 'pglite', pglite: embedded.pglite }, values.name);
  } finally {
    await embedded.close();
  }
}

async function migrate(target: MigrationTarget, name: string | undefined): Promise<void> {
  if (name !== undefined) {
    const created = await createMigration(name, target);
    const where = path.relative(process.cwd(), defaultMigrationPaths.migrationsDir);
    console.log(
      created
        ? `created ${path.join(where, created, 'migration.sql')} (review it, add hand-written SQL if needed, commit it)`
        : 'schema.prisma matches the migrations: no new migration',
    );
  }
  const { applied } = await applyMigrations(target);
  console.log(
    applied.length > 0
      ? `applied ${applied.length} migration(s):\n${applied.map((m) => `  ${m}`).join('\n')}`
      : 'no pending migrations: the database is up to date',
  );
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

main().catch((err: unknown) => {
  // A locked directory is an expected situation, so a plain sentence without a stack.
  console.error(err instanceof DatabaseLockedError ? err.message : err);
  process.exitCode = 1;
});
