// Bundles the service's own TypeScript into dist/ for `npm start` (run by `prestart`, in a
// fraction of a second): started as plain JavaScript, the server loads in one file instead of
// through a TypeScript loader module by module. Packages stay in node_modules.
//
// Two `npm start`s at the same moment (two test files starting the server) both build: each
// output is written to a file of its own and renamed over the old one, so a server never loads
// a half-written bundle; an output whose content is unchanged is not written at all.
// Then the ops screen's page (ops/, by vite) into dist/ops and the embedded components (embed/)
// into dist/embed, when their sources changed.
//
// A restart through `npm start` bundles again only when what the bundle is made of changed (the
// files under src/, the lock file, this script): on a machine whose cores are busy, esbuild's
// threads took a second or more of a restart's time for nothing (bench/README.md, "Restart
// with both cores busy").
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEmbed } from './build-embed.mjs';
import { buildOps } from './build-ops.mjs';

const STAMP = path.join('dist', '.build-inputs.json');

/** The bundle's inputs as they are now: each file's path, size and modification time, hashed. */
async function inputsNow() {
  const files = (await readdir('src', { recursive: true, withFileTypes: true })).filter((f) => f.isFile()).map((f) => path.join(f.parentPath, f.name));
  files.push('package-lock.json', 'tsconfig.json', path.relative(process.cwd(), fileURLToPath(import.meta.url)));
  const hash = createHash('sha256');
  for (const file of files.sort()) {
    const s = await stat(file).catch(() => null);
    hash.update(`${file}\0${s ? `${s.size}:${s.mtimeMs}` : 'missing'}\0`);
  }
  return hash.digest('hex');
}

/** Whether dist/ holds the bundle of exactly these inputs, every file of it in place. */
async function bundleIsCurrent(inputs) {
  const stamp = JSON.parse(await readFile(STAMP, 'utf8').catch(() => 'null'));
  if (stamp?.inputs !== inputs || !Array.isArray(stamp.outputs)) return false;
  return (await Promise.all(stamp.outputs.map((file) => stat(file).then(() => true, () => false)))).every(Boolean);
}

/**
 * Packages stay in node_modules, but for those named here, bundled for what the service uses of
 * them: graphql-scalars, whose one scalar the schema uses (it declares no side effects, so the
 * other seventy-nine are left out); imported whole, its 84 modules cost each start 50–110 ms of
 * CPU on this machine. What they import stays external (one graphql for every package).
 */
const BUNDLED_PACKAGES = new Set(['graphql-scalars']);
const packagesExternal = {
  name: 'packages-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      return BUNDLED_PACKAGES.has(name) && args.kind !== 'entry-point' ? undefined : { path: args.path, external: true };
    });
  },
};

const inputs = await inputsNow();
if (!(await bundleIsCurrent(inputs))) await bundle(inputs);

// The ops screen's page (vite, ops/ → dist/ops) and the embedded booking components (vite,
// embed/ → dist/embed, within their size budget), when their sources changed.
await buildOps();
await buildEmbed();

/** esbuild's bundle of src/main.ts and src/worker.ts into dist/, then the stamp of its inputs. */
async function bundle(inputs) {
  const { build } = await import('esbuild');
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
    plugins: [packagesExternal],
    // Stack traces name the TypeScript files and lines (the service reads its own maps:
    // src/startup.ts); the maps leave out the sources, which the process would otherwise hold.
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
  // Written last, as the other outputs are: a stamp never names a bundle that is not all there.
  const temporary = `${STAMP}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify({ inputs, outputs: outputFiles.map((f) => path.relative(process.cwd(), f.path)) }));
  await rename(temporary, STAMP);
}
