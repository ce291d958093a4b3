import { readdir } from 'node:fs/promises';
import type pg from 'pg';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { defaultMigrationPaths } from './migrate.ts';

const APPLIED = 'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL';

/** Migrations of prisma/migrations the database has not applied (for the readiness check). */
export async function pendingMigrations(prisma: PrismaClient, migrationsDir = defaultMigrationPaths.migrationsDir): Promise<string[]> {
  return pendingOf(await prisma.$queryRawUnsafe<{ migration_name: string }[]>(APPLIED), migrationsDir);
}

/**
 * The same, on PostgreSQL's pool, before Prisma is in use (database.ts, at start): a database
 * without the migrations' table yet has every migration pending.
 */
export async function pendingMigrationsOn(pool: pg.Pool, migrationsDir = defaultMigrationPaths.migrationsDir): Promise<string[]> {
  const applied = await pool.query<{ migration_name: string }>(APPLIED).then(
    (result) => result.rows,
    (err: { code?: unknown }) => {
      if (err?.code === '42P01') return []; // undefined_table
      throw err;
    },
  );
  return pendingOf(applied, migrationsDir);
}

async function pendingOf(applied: { migration_name: string }[], migrationsDir: string): Promise<string[]> {
  const expected = (await readdir(migrationsDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  const done = new Set(applied.map((r) => r.migration_name));
  return expected.filter((name) => !done.has(name)).sort();
}
