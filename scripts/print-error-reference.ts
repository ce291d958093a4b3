import { writeFileSync } from 'node:fs';
import { errorReference, loadCatalogues } from './error-reference.ts';

/** `npm run docs:errors`: write docs/errors.md from the error catalogues. */
writeFileSync(new URL('../docs/errors.md', import.meta.url), errorReference(await loadCatalogues()));
console.log('wrote docs/errors.md');
