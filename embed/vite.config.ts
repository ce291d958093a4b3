import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The embedded booking components (GET /embed/v1/components.js): Preact custom elements, one
 * ES module bundled by `node scripts/build.mjs` into dist/embed, which the service serves
 * itself. Nothing loads from another host; no chunk, no CSS file (the elements' styles are
 * constructable stylesheets, so a page's strict Content-Security-Policy needs no unsafe-inline).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/embed', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    minify: true,
    lib: { entry: fileURLToPath(new URL('./src/components.ts', import.meta.url)), formats: ['es'], fileName: () => 'components.js' },
    rolldownOptions: { output: { codeSplitting: false, minify: true } },
  },
});
