// Bundles the service's own TypeScript into dist/ for `npm start` (run by `prestart`, in a
// fraction of a second): started as plain JavaScript, the server loads in one file instead of
// through a TypeScript loader module by module. Packages stay in node_modules.
//
// Two `npm start`s at the same moment (two test files starting the server) both build: each
// output is written to a file of its own and renamed over the old one, so a server never loads
// a half-written bundle; an output whose content is unchanged is not written at all.
// Then the ops screen's page (ops/, by vite) into dist/ops, when its sources changed.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { buildOps } from './build-ops.mjs';

const { outputFiles } = await build({
  entryPoints: { main: 'src/main.ts', worker: 'src/worker.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  // Modules the service imports lazily (the S3 SDK's adapter, Stripe's event reader...) become
  // chunks of their own, loaded when first used: a single file would load their packages at start.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  packages: 'external',
  // Stack traces name the TypeScript files and lines (node --enable-source-maps); the maps
  // leave out the sources themselves, which the process would otherwise hold in memory.
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
  write: false,
});

// Source maps first, so that a bundle renamed into place finds the map it names; then the
// chunks (named by their content), so that an entry renamed into place finds the chunks it imports.
const rank = (file) => (file.path.endsWith('.map') ? 0 : file.path.includes(`${path.sep}chunks${path.sep}`) ? 1 : 2);
const ordered = [...outputFiles].sort((a, b) => rank(a) - rank(b));
for (const file of ordered) {
  const current = await readFile(file.path).catch(() => null);
  if (current && Buffer.compare(current, file.contents) === 0) continue;
  await mkdir(path.dirname(file.path), { recursive: true });
  const temporary = `${file.path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, file.contents);
    await rename(temporary, file.path); // atomic on one file system: the old bundle or the new one
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

// The ops screen's page (vite, ops/ → dist/ops), when its sources changed.
await buildOps();
