// The ops screen (/ops): vite builds ops/ into dist/ops, only when its sources changed since
// the last build or the output is missing (scripts/vite-swap-build.mjs).
// `node scripts/build.mjs` (npm start's prestart) and the ops screen's test call it.
import path from 'node:path';
import { buildSwapped, root } from './vite-swap-build.mjs';

export const opsDist = path.join(root, 'dist', 'ops');

/** Build the page unless dist/ops is current; resolves with whether it built. */
export function buildOps({ force = false } = {}) {
  return buildSwapped({ source: path.join(root, 'ops'), dist: opsDist, entry: 'index.html', packages: ['vite', 'preact', 'graphql-ws'], force });
}
