import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The ops screen (/ops): Preact, bundled by `node scripts/build.mjs` into dist/ops, which the
 * service serves itself (nothing from a CDN: it works offline).
 */
export default defineConfig({
  root: here,
  base: '/ops/',
  // No public/ directory: every file the page loads is in the bundle.
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ops', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // The page's CSS as a file (the page's Content-Security-Policy allows no inline style).
    cssCodeSplit: false,
    modulePreload: { polyfill: false },
  },
});
