import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's directory (the one holding prisma/schema.prisma), found upward from this
 * module: the same whether the code runs from src/ or bundled into dist/.
 */
export const projectRoot = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'prisma', 'schema.prisma'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the project directory (prisma/schema.prisma) above the running code');
    dir = up;
  }
  return dir;
})();
