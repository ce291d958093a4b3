// Bundles the service's own TypeScript into dist/ for `npm start` (run by `prestart`, in a
// fraction of a second): started as plain JavaScript, the server loads in one file instead of
// through a TypeScript loader module by module. Packages stay in node_modules.
import { build } from 'esbuild';

await build({
  entryPoints: { main: 'src/main.ts', worker: 'src/worker.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
