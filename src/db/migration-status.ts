import { readdir } from 'node:fs/promises';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { defaultMigrationPaths } from './migrate.ts';

/** Migrations of prisma/migrations the database has not applied (for the readiness check). */
export async function pendingMigrations(prisma: PrismaClient, migrationsDir = defaultMigrationPaths.migrationsDir): Promise<string[]> {
  const expected = (await readdir(migrationsDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  const applied = await prisma.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  const done = new Set(applied.map((r) => r.migration_name));
  return expected.filter((name) => !done.has(name)).sort();
}
