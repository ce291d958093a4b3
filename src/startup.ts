// What a process of the service (`npm start`, `npm run worker`) sets up before it loads its
// modules, so that a restart does not redo work the previous start already did. On this 2-core
// machine with both cores busy (bench/README.md, "Restart with both cores busy"), a start of
// the API on PostgreSQL spent about 1.5 s of CPU, most of it loading modules: compiling their
// JavaScript, reading their source maps, Prisma's query compiler.
import module from 'node:module';
import path from 'node:path';
import { projectRoot } from './project-root.ts';

/** Where V8's compiled code of the service's modules is kept between starts (NODE_COMPILE_CACHE, when set, wins). */
export const COMPILE_CACHE_DIR = path.join(projectRoot, 'node_modules', '.cache', 'rental-api', 'compile-cache');

/**
 * Call first, then import the modules dynamically: only modules loaded after it are covered.
 * - Source maps of the service's own code only: stack traces still name src/ files and lines,
 *   and the packages' maps (Prisma's runtime alone has a 1 MB one) are never read.
 * - V8's compile cache on disk (node:module): a module unchanged since a previous start is not
 *   compiled again. An unwritable directory only means no cache.
 */
export function prepareStartup(): void {
  module.setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });
  module.enableCompileCache(COMPILE_CACHE_DIR);
}

/**
 * Write the compiled code out now rather than at exit: a process killed with SIGKILL never
 * exits, and its successor would compile everything again.
 */
export function keepCompiledCode(): void {
  module.flushCompileCache();
}
