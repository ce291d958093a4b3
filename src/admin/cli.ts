import { loadConfig } from '../config.ts';
import { describeDatabaseError, describeDatabaseUrlProblem, scrubPassword } from '../db/connection-errors.ts';
import type { Database } from '../db/database.ts';
import { ADMIN_USAGE, AdminUsageError, parseAdminArgs, runAdminCommand } from './admin-commands.ts';

/**
 * `npm run admin -- <command>`: what the API has no operation for (the contract: creating a
 * business and its keys). Works on PostgreSQL at any time, and on the embedded database
 * while no server holds it.
 *
 * It never prints a stack trace: bad arguments are a line or two and exit 2, a database it
 * cannot open one line and exit 1 (3 when the embedded database is held by a server), and
 * anything unexpected one line and exit 1 (ADMIN_DEBUG=1 prints the whole error).
 */
const EXIT_DATABASE = 1;
const EXIT_USAGE = 2;
const EXIT_LOCKED = 3;

async function main(): Promise<number> {
  const parsed = parseAdminArgs(process.argv.slice(2));
  if (parsed.help) {
    console.log(ADMIN_USAGE);
    return 0;
  }
  const config = loadConfig();
  const target = { databaseUrl: config.databaseUrl, dataDir: config.dataDir };
  // Before connecting: pg would take `not-a-url` for a host name and look it up.
  const urlProblem = target.databaseUrl ? describeDatabaseUrlProblem(target.databaseUrl) : null;
  if (urlProblem) {
    console.error(urlProblem);
    return EXIT_DATABASE;
  }
  // Loaded here, so that help and argument errors do not wait for PGlite and Prisma.
  const { DatabaseLockedError, openDatabase } = await import('../db/database.ts');
  let db: Database;
  try {
    db = await openDatabase(target);
  } catch (err) {
    if (err instanceof DatabaseLockedError) {
      console.error(`${err.message}\nNothing was changed.`);
      return EXIT_LOCKED;
    }
    const line = describeDatabaseError(err, target);
    if (line === null) throw err;
    console.error(line);
    return EXIT_DATABASE;
  }
  try {
    // Links it prints (the ops screen's sign-in) point at PUBLIC_URL, else this machine's PORT.
    const output = await runAdminCommand(db.prisma, parsed.positionals, parsed.options, { baseUrl: config.publicUrl ?? `http://localhost:${config.port}` });
    console.log(parsed.json ? JSON.stringify(output, null, 2) : formatHuman(output));
    return 0;
  } catch (err) {
    // The server going away in the middle of a command, for instance.
    const line = err instanceof AdminUsageError ? null : describeDatabaseError(err, target);
    if (line === null) throw err;
    console.error(line);
    return EXIT_DATABASE;
  } finally {
    await db.close().catch(() => {});
  }
}

function formatHuman(output: unknown): string {
  if (Array.isArray(output)) return output.map((row) => Object.entries(row).map(([k, v]) => `${k}=${v}`).join('  ')).join('\n') || '(none)';
  return Object.entries(output as Record<string, unknown>).map(([k, v]) => `${k}: ${v}`).join('\n');
}

/** The last non-empty line of an error's message (Prisma puts the gist last), password masked. */
function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const lines = message.split('\n').map((l) => l.trim()).filter(Boolean);
  const name = err instanceof Error && err.name !== 'Error' ? `${err.name}: ` : '';
  return scrubPassword(`${name}${lines.at(-1) ?? '(no message)'}`, process.env.DATABASE_URL);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof AdminUsageError) {
      console.error(err.message);
      process.exitCode = EXIT_USAGE;
      return;
    }
    console.error(`admin: failed: ${oneLine(err)}`);
    if (process.env.ADMIN_DEBUG === '1') console.error(err);
    else console.error('(ADMIN_DEBUG=1 shows the whole error)');
    process.exitCode = 1;
  },
);
