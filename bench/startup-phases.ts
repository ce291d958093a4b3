// Child process of the startup bench: what `npm start` does on a fresh embedded database, one
// step at a time with its duration, so the bench can say where the start-up goes. Prints one
// line `PHASES {json}` (milliseconds) and exits. Env: DATA_DIR (a fresh, empty directory).
const t0 = performance.now();
const phases: Record<string, number> = {};
let last = t0;
const mark = (name: string) => {
  const t = performance.now();
  phases[name] = Math.round((t - last) * 10) / 10;
  last = t;
};
const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');
const { openPGlite } = await import('../src/db/database.ts');
const { applyMigrations } = await import('../src/db/migrate.ts');
const { readTemplate, readTemplateDirectory } = await import('../src/db/pglite-template.ts');
mark('import database modules');
// As openDatabase does: a fresh directory starts from the template when there is one (its
// directory, copied; else its dump).
const template = (await readTemplateDirectory()) ?? (await readTemplate());
mark(typeof template === 'string' ? 'find the template directory' : template ? 'read the template dump' : 'no template');
const embedded = await openPGlite(dataDir, template);
mark(typeof template === 'string' ? 'copy the template, PGlite open' : template ? 'PGlite open (from the dump)' : 'PGlite open (fresh directory)');
if (!template) {
  await applyMigrations({ kind: 'pglite', pglite: embedded.pglite });
  mark('migrations');
}
const { PrismaClient } = await import('../src/generated/prisma/client.ts');
const { PrismaPGlite } = await import('pglite-prisma-adapter');
const prisma = new PrismaClient({ adapter: new PrismaPGlite(embedded.pglite) });
const { seedDemoBusiness } = await import('../src/seed.ts');
mark('import client and seed modules');
await seedDemoBusiness(prisma);
mark('seed (first Prisma queries)');
const { loadConfig } = await import('../src/config.ts');
const { buildApp } = await import('../src/server.ts');
mark('import server modules');
const db = { prisma, kind: 'pglite' as const, listen: async (channel: string, fn: () => void) => { const u = await embedded.pglite.listen(channel, () => fn()); return async () => u(); }, close: async () => {} };
const app = await buildApp({ db, config: loadConfig({ ...process.env, DATABASE_URL: '', REDIS_URL: '' }) });
mark('buildApp');
const server = await app.listen(0, '127.0.0.1');
const port = (server.address() as { port: number }).port;
mark('listen');
const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
await res.text();
mark(`first GET /health/ready (${res.status})`);
phases.total = Math.round((performance.now() - t0) * 10) / 10;
process.stdout.write(`PHASES ${JSON.stringify(phases)}\n`);
await app.close({ graceMs: 0 }).catch(() => {});
await prisma.$disconnect().catch(() => {});
await embedded.close();
process.exit(0);
