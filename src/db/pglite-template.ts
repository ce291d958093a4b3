// A fresh embedded database is made from a template: a dump of an empty database with every
// migration applied. Initialising PGlite's data directory and migrating it costs several
// seconds; loading the dump costs one. The template is keyed by PGlite's version and the
// migrations' contents, so a new migration or PGlite release makes a new one.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { projectRoot } from '../project-root.ts';
import { defaultMigrationPaths } from './migrate.ts';


/** Where templates are kept (PGLITE_TEMPLATE_DIR, else node_modules/.cache of the project). */
function templateDir(): string {
  return process.env.PGLITE_TEMPLATE_DIR || path.join(projectRoot, 'node_modules/.cache/rental-api');
}

/**
 * Settings of every embedded database made here (kept in its postgresql.auto.conf): a
 * development database needs less than PostgreSQL's 128 MB of shared buffers, which PGlite
 * allocates and zeroes at every start (about half a second and 100 MB of memory).
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '32MB' };

/** Write EMBEDDED_SETTINGS into a new database; they hold from its next start (and in every copy). */
export async function applyEmbeddedSettings(pglite: PGlite): Promise<void> {
  for (const [name, value] of Object.entries(EMBEDDED_SETTINGS)) await pglite.exec(`ALTER SYSTEM SET ${name} = '${value}'`);
}

let keyOnce: Promise<string> | null = null;

/** PGlite's version, the embedded settings and every migration file's name and bytes. */
function templateKey(): Promise<string> {
  keyOnce ??= (async () => {
    const hash = createHash('sha256');
    // The package's entry is in dist/; its package.json is not exported, so it is read from disk.
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const pgliteVersion = (JSON.parse(await readFile(path.resolve(path.dirname(entry), '../package.json'), 'utf8')) as { version: string }).version;
    hash.update(`pglite ${pgliteVersion}\n${JSON.stringify(EMBEDDED_SETTINGS)}\n`);
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
const templateDirectoryPath = async () => path.join(templateDir(), `pglite-${await templateKey()}`);

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

/**
 * The template as a data directory, when there is one: a new database on disk is a copy of
 * its files, which PostgreSQL opens as it opens any existing directory (about a second less
 * than unpacking the dump into a new one).
 */
export async function readTemplateDirectory(): Promise<string | null> {
  const dir = await templateDirectoryPath();
  return existsSync(path.join(dir, 'PG_VERSION')) ? dir : null;
}

/** Unpack the current template's dump into a data directory (made aside, then renamed into place). */
export async function saveTemplateDirectory(open: (dataDir: string, template: Blob) => Promise<{ close(): Promise<void> }>): Promise<string | null> {
  const template = await readTemplate();
  if (!template) return null;
  const target = await templateDirectoryPath();
  const aside = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    // Opened and closed cleanly: the directory is a shut-down database, ready to be copied.
    await (await open(aside, template)).close();
    await rm(path.join(aside, '.lock'), { force: true });
    await rename(aside, target);
  } catch (err) {
    await rm(aside, { recursive: true, force: true });
    if (!existsSync(path.join(target, 'PG_VERSION'))) throw err; // else another process made it first
  }
  return target;
}

/**
 * Copy a template directory's files into `to` (which may exist: it holds the lock file).
 * File by file, many at a time: the copies run on libuv's threads, about four times faster
 * than fs.cp's one-by-one walk over the thousand-odd files of a data directory.
 */
export async function copyTemplateDirectory(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  if (entries.some((e) => !e.isFile() && !e.isDirectory())) return cp(from, to, { recursive: true }); // links and the like: the careful way
  const relative = (e: (typeof entries)[number]) => path.relative(from, path.join(e.parentPath, e.name));
  for (const dir of entries.filter((e) => e.isDirectory()).map(relative).sort()) await mkdir(path.join(to, dir), { recursive: true });
  // Never the lock file of the process that made it: `to` holds ours.
  const files = entries.filter((e) => e.isFile()).map(relative).filter((f) => f !== '.lock');
  let next = 0;
  const copier = async () => {
    while (next < files.length) {
      const file = files[next++];
      await copyFile(path.join(from, file), path.join(to, file));
    }
  };
  await Promise.all(Array.from({ length: 16 }, copier));
}
