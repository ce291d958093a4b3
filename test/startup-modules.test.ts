// What a process loads before it serves: a restart's time on a busy machine is mostly its
// CPU, and loading modules is most of that. Packages that only some requests need load with
// the first of them (bench/README.md, restart with both cores busy): the OAuth library and its
// web framework (about 0.4 s of CPU), the HTTP client of webhook deliveries, and the embedded
// database's modules on a server that runs on PostgreSQL.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/** The packages that loading the server's and the database's modules resolves, in a fresh process. */
async function packagesLoadedAtStart(): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'startup-modules-'));
  try {
    const script = path.join(dir, 'probe.mjs');
    await writeFile(
      script,
      `import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r; } });
await import(${JSON.stringify(path.join(root, 'src/server.ts'))});
await import(${JSON.stringify(path.join(root, 'src/db/database.ts'))});
const packages = new Set([...seen].map((url) => url.match(/node_modules\\/((@[^/]+\\/)?[^/]+)/)?.[1]).filter(Boolean));
console.log(JSON.stringify([...packages]));
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: root, env: { ...process.env, LOG_LEVEL: 'silent' } });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('loads neither the OAuth library, the delivery HTTP client nor the embedded database before serving', async () => {
  const loaded = await packagesLoadedAtStart();
  expect(loaded).toContain('@prisma/client'); // the probe sees the start's modules
  expect(loaded).toContain('graphql');
  for (const later of ['oidc-provider', 'koa', 'undici', '@electric-sql/pglite', 'pglite-prisma-adapter']) expect(loaded, later).not.toContain(later);
}, 60_000);
