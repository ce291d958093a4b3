import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { DatabaseLockedError, openDatabase, type Database } from '../db/database.ts';
import { runAdminCommand, AdminUsageError } from './admin-commands.ts';

/**
 * `npm run admin -- <command>`: what the API has no operation for (CONTRACT.md: creating a
 * business and its keys). Works on PostgreSQL at any time, and on the embedded database
 * while no server holds it.
 */
async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      business: { type: 'string' },
      key: { type: 'string' },
      mode: { type: 'string' },
      kind: { type: 'string' },
      permissions: { type: 'string' },
      currency: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const config = loadConfig();
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (err) {
    if (err instanceof DatabaseLockedError) {
      console.error(`${err.message}\nNothing was changed.`);
      process.exit(3);
    }
    throw err;
  }
  try {
    const output = await runAdminCommand(db.prisma, positionals, values);
    console.log(values.json ? JSON.stringify(output, null, 2) : formatHuman(output));
  } catch (err) {
    if (err instanceof AdminUsageError) {
      console.error(err.message);
      process.exitCode = 2;
    } else throw err;
  } finally {
    await db.close();
  }
}

function formatHuman(output: unknown): string {
  if (Array.isArray(output)) return output.map((row) => Object.entries(row).map(([k, v]) => `${k}=${v}`).join('  ')).join('\n') || '(none)';
  return Object.entries(output as Record<string, unknown>).map(([k, v]) => `${k}: ${v}`).join('\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
