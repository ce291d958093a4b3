import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FileStorage } from '../domain/files/file-storage.ts';

/** Files as plain files in a directory (FILES_DIR; by default `files` in the data directory). */
export function directoryStorage(root: string): FileStorage {
  const base = resolve(root);
  const pathOf = (key: string) => {
    const path = resolve(base, ...key.split('/'));
    // Keys are the service's own, but a key that escaped the directory would be a bug worth stopping.
    if (!path.startsWith(base + sep)) throw new Error(`storage key outside the files directory: ${key}`);
    return path;
  };
  return {
    name: 'directory',
    async put(key, bytes) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Written aside and renamed: a reader never sees half a file.
      const partial = `${path}.${randomBytes(6).toString('hex')}.partial`;
      await writeFile(partial, bytes);
      await rename(partial, path);
    },
    async get(key) {
      try {
        return await readFile(pathOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async remove(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}

