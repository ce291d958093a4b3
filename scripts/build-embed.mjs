// The embedded booking components (GET /embed/v1/components.js): vite builds embed/ into
// dist/embed/components.js, one ES module, only when its sources changed since the last build
// (a hash of them is kept beside the output) or the output is missing. The build fails when
// the module is over its budget: EMBED_BUDGET_GZIP_BYTES gzip (the contract: 60 KB).
// `node scripts/build.mjs` (npm start's prestart) and the components' tests call it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'embed');
export const embedDist = path.join(root, 'dist', 'embed');
export const EMBED_BUDGET_GZIP_BYTES = 60 * 1024;
const stamp = path.join(embedDist, '.source-hash');

/** A hash of every source file of the components (the typed client's too), and of the versions of what builds them. */
async function sourceHash() {
  const hash = createHash('sha256');
  const files = (await readdir(source, { recursive: true, withFileTypes: true }))
    .filter((f) => f.isFile())
    .map((f) => path.join(f.parentPath, f.name))
    .sort();
  files.push(path.join(root, 'client', 'index.ts'), fileURLToPath(import.meta.url));
  for (const file of files) hash.update(`${path.relative(root, file)}\0`).update(await readFile(file)).update('\0');
  for (const pkg of ['vite', 'preact', 'openapi-fetch']) {
    const manifest = JSON.parse(await readFile(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8'));
    hash.update(`${pkg}@${manifest.version}\0`);
  }
  return hash.digest('hex');
}

/** The gzip size of a built module, and whether it is within the budget. */
export function gzipSize(bytes) {
  return gzipSync(bytes, { level: 9 }).length;
}

/**
 * Build the components unless dist/embed is current; resolves with whether it built. As the
 * ops screen's build: into a directory of its own, then swapped in by renames.
 */
export async function buildEmbed({ force = false, budget = EMBED_BUDGET_GZIP_BYTES } = {}) {
  const wanted = await sourceHash();
  const current = existsSync(path.join(embedDist, 'components.js')) && existsSync(stamp) ? (await readFile(stamp, 'utf8')).trim() : null;
  if (!force && current === wanted) return false;
  const { build } = await import('vite');
  const fresh = `${embedDist}.${process.pid}.tmp`;
  const old = `${embedDist}.${process.pid}.old`;
  try {
    await build({ configFile: path.join(source, 'vite.config.ts'), logLevel: 'warn', build: { outDir: fresh, emptyOutDir: true } });
    const outputs = (await readdir(fresh)).filter((f) => !f.startsWith('.'));
    if (outputs.length !== 1 || outputs[0] !== 'components.js') throw new Error(`embed: expected one module, components.js; the build made ${outputs.join(', ')}`);
    const size = gzipSize(await readFile(path.join(fresh, 'components.js')));
    if (size > budget) throw new Error(`embed: components.js is ${size} bytes gzip, over its budget of ${budget} bytes`);
    await writeFile(path.join(fresh, '.source-hash'), `${wanted}\n`);
    await rename(embedDist, old).catch((err) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await rename(fresh, embedDist).catch((err) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await rm(fresh, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
  return true;
}
