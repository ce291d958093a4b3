// Makes the embedded database's template (a migrated, empty database) ahead of the first
// `npm start`, so that start-up on a fresh data directory loads it instead of initialising
// and migrating. Run after install; it never fails the install: at worst the first start
// makes the template itself.
import { openDatabase, openPGlite } from '../src/db/database.ts';
import { saveTemplateDirectory } from '../src/db/pglite-template.ts';

try {
  // The dump (made by the first open of a fresh database), then the directory unpacked from it.
  const db = await openDatabase({ dataDir: 'memory://' });
  await db.close();
  await saveTemplateDirectory(openPGlite);
} catch (err) {
  console.warn(`pglite template: not made (${(err as Error).message}); the first start will make it`);
}
