// The ops screen (/ops): vite builds ops/ into dist/ops, only when its sources changed since
// the last build (a hash of them is kept beside the output) or the output is missing.
// `node scripts/build.mjs` (npm start's prestart) and the ops screen's test call it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'ops');
export const opsDist = path.join(root, 'dist', 'ops');
const stamp = path.join(opsDist, '.source-hash');

/** A hash of every source file of the page, and of the versions of what builds and runs it. */
async function sourceHash() {
  const hash = createHash('sha256');
  const files = (await readdir(source, { recursive: true, withFileTypes: true }))
    .filter((f) => f.isFile())
    .map((f) => path.join(f.parentPath, f.name))
    .sort();
  for (const file of files) hash.update(`${path.relative(source, file)}\0`).update(await readFile(file)).update('\0');
  for (const pkg of ['vite', 'preact', 'graphql-ws']) {
    const manifest = JSON.parse(await readFile(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8'));
    hash.update(`${pkg}@${manifest.version}\0`);
  }
  return hash.digest('hex');
}

/**
 * Build the page unless dist/ops is current; resolves with whether it built. Two builds at the
 * same moment (two `npm start`s, a test beside one) each build into a directory of their own,
 * then swap it in by renames, so a server never serves a half-written page.
 */
export async function buildOps({ force = false } = {}) {
  const wanted = await sourceHash();
  const current = existsSync(path.join(opsDist, 'index.html')) && existsSync(stamp) ? (await readFile(stamp, 'utf8')).trim() : null;
  if (!force && current === wanted) return false;
  const { build } = await import('vite');
  const fresh = `${opsDist}.${process.pid}.tmp`;
  const old = `${opsDist}.${process.pid}.old`;
  try {
    await build({ configFile: path.join(source, 'vite.config.ts'), logLevel: 'warn', build: { outDir: fresh, emptyOutDir: true } });
    await writeFile(path.join(fresh, '.source-hash'), `${wanted}\n`);
    await rename(opsDist, old).catch((err) => {
      if (err.code !== 'ENOENT') throw err;
    });
    // Another build may have swapped its own in meanwhile: theirs is as good as ours.
    await rename(fresh, opsDist).catch((err) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await rm(fresh, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
  return true;
}
