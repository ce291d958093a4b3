// What the ops screen's and the embedded components' builds share: vite builds a source
// directory into dist/<name> only when its sources changed since the last build (a hash of them
// is kept beside the output) or the output is missing, and swaps the new output in by renames.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A hash of every file under `source`, of `extraFiles`, and of the versions of `packages`. */
async function sourceHash(source, extraFiles, packages) {
  const hash = createHash('sha256');
  const files = (await readdir(source, { recursive: true, withFileTypes: true }))
    .filter((f) => f.isFile())
    .map((f) => path.join(f.parentPath, f.name))
    .sort();
  files.push(...extraFiles, fileURLToPath(import.meta.url));
  for (const file of files) hash.update(`${path.relative(root, file)}\0`).update(await readFile(file)).update('\0');
  for (const pkg of packages) {
    const manifest = JSON.parse(await readFile(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8'));
    hash.update(`${pkg}@${manifest.version}\0`);
  }
  return hash.digest('hex');
}

/**
 * Build `source` (its vite.config.ts) into `dist` unless `dist` is current (holds `entry` and the
 * hash of today's sources); resolves with whether it built. `check(dir)` may refuse a fresh
 * build by throwing before it is swapped in. Two builds at the same moment (two `npm start`s, a
 * test beside one) each build into a directory of their own, then swap it in by renames, so a
 * server never serves a half-written output.
 */
export async function buildSwapped({ source, dist, entry, extraFiles = [], packages, check = async () => {}, force = false }) {
  const stamp = path.join(dist, '.source-hash');
  const wanted = await sourceHash(source, extraFiles, packages);
  const current = existsSync(path.join(dist, entry)) && existsSync(stamp) ? (await readFile(stamp, 'utf8')).trim() : null;
  if (!force && current === wanted) return false;
  const { build } = await import('vite');
  const fresh = `${dist}.${process.pid}.tmp`;
  const old = `${dist}.${process.pid}.old`;
  try {
    await build({ configFile: path.join(source, 'vite.config.ts'), logLevel: 'warn', build: { outDir: fresh, emptyOutDir: true } });
    await check(fresh);
    await writeFile(path.join(fresh, '.source-hash'), `${wanted}\n`);
    await rename(dist, old).catch((err) => {
      if (err.code !== 'ENOENT') throw err;
    });
    // Another build may have swapped its own in meanwhile: theirs is as good as ours.
    await rename(fresh, dist).catch((err) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await rm(fresh, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
  return true;
}
