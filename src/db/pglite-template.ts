// A fresh embedded database is made from a template: a dump of an empty database with every
// migration applied. Initialising PGlite's data directory and migrating it costs several
// seconds; loading the dump costs one. The template is keyed by PGlite's version and the
// migrations' contents, so a new migration or PGlite release makes a new one.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { projectRoot } from '../project-root.ts';
import { defaultMigrationPaths } from './migrate.ts';


/** Where templates are kept (PGLITE_TEMPLATE_DIR, else node_modules/.cache of the project). */
function templateDir(): string {
  return process.env.PGLITE_TEMPLATE_DIR || path.join(projectRoot, 'node_modules/.cache/rental-api');
}

let keyOnce: Promise<string> | null = null;

/** PGlite's version and every migration file's name and bytes. */
function templateKey(): Promise<string> {
  keyOnce ??= (async () => {
    const hash = createHash('sha256');
    // The package's entry is in dist/; its package.json is not exported, so it is read from disk.
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const pgliteVersion = (JSON.parse(await readFile(path.resolve(path.dirname(entry), '../package.json'), 'utf8')) as { version: string }).version;
    hash.update(`pglite ${pgliteVersion}\n`);
    const dir = defaultMigrationPaths.migrationsDir;
    for (const entry of (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
      hash.update(`${entry}\n`);
      hash.update(await readFile(path.join(dir, entry, 'migration.sql')));
    }
    return hash.digest('hex').slice(0, 16);
  })();
  return keyOnce;
}

const templatePath = async () => path.join(templateDir(), `pglite-${await templateKey()}.tar.gz`);

/** The current template, or null when there is none yet (or it cannot be read). */
export async function readTemplate(): Promise<Blob | null> {
  try {
    return new Blob([await readFile(await templatePath())]);
  } catch {
    return null;
  }
}

/** Keep a freshly migrated, still empty database as the template (written aside, then renamed into place). */
export async function saveTemplate(pglite: PGlite): Promise<void> {
  const target = await templatePath();
  await mkdir(path.dirname(target), { recursive: true });
  const dump = await pglite.dumpDataDir('gzip');
  const aside = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(aside, Buffer.from(await dump.arrayBuffer()));
  await rename(aside, target);
}
