import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string }; dependencies: Record<string, string> };

/**
 * The service ships on the Node that package.json pins (the registry's `node` package, linked
 * as node_modules/.bin/node): npm scripts run it whatever Node runs npm itself, so the tests,
 * `npm start` and every tool of the scripts run on it.
 */
describe('the runtime', () => {
  it('runs this suite on the pinned Node, which the engines field supports', () => {
    const pinned = pkg.dependencies.node;
    expect(process.version).toBe(`v${pinned}`);
    const [major] = pinned.split('.').map(Number);
    expect(major).toBeGreaterThanOrEqual(24);
    expect(pkg.engines.node).toMatch(new RegExp(`^\\^${major}\\.`));
  });

  it('gives npm scripts the pinned Node even when npm itself runs on another', () => {
    const printed = execFileSync('npm', ['exec', '--', 'node', '-p', 'process.version'], { cwd: root, encoding: 'utf8', env: { ...process.env, PATH: `/usr/bin:/bin:${process.env.PATH}` } });
    expect(printed.trim()).toBe(`v${pkg.dependencies.node}`);
  });
});
