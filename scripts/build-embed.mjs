// The embedded booking components (GET /embed/v1/components.js): vite builds embed/ into
// dist/embed/components.js, one ES module, only when its sources (the typed client's too)
// changed since the last build or the output is missing (scripts/vite-swap-build.mjs). The
// build fails when the module is over its budget: EMBED_BUDGET_GZIP_BYTES gzip (the contract:
// 60 KB). `node scripts/build.mjs` (npm start's prestart) and the components' tests call it.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildSwapped, root } from './vite-swap-build.mjs';

export const embedDist = path.join(root, 'dist', 'embed');
export const EMBED_BUDGET_GZIP_BYTES = 60 * 1024;

/** The gzip size of a built module. */
export function gzipSize(bytes) {
  return gzipSync(bytes, { level: 9 }).length;
}

/** Build the components unless dist/embed is current; resolves with whether it built. */
export function buildEmbed({ force = false, budget = EMBED_BUDGET_GZIP_BYTES } = {}) {
  return buildSwapped({
    source: path.join(root, 'embed'),
    dist: embedDist,
    entry: 'components.js',
    extraFiles: [path.join(root, 'client', 'index.ts'), fileURLToPath(import.meta.url)],
    packages: ['vite', 'preact', 'openapi-fetch'],
    force,
    check: async (fresh) => {
      const outputs = (await readdir(fresh)).filter((f) => !f.startsWith('.'));
      if (outputs.length !== 1 || outputs[0] !== 'components.js') throw new Error(`embed: expected one module, components.js; the build made ${outputs.join(', ')}`);
      const size = gzipSize(await readFile(path.join(fresh, 'components.js')));
      if (size > budget) throw new Error(`embed: components.js is ${size} bytes gzip, over its budget of ${budget} bytes`);
    },
  });
}
