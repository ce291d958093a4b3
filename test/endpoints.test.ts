import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '../rest-adapter/routes/index.ts';

/*
 * Every row of the specification's endpoint tables (the project's copy: docs/endpoints.md,
 * with the method each operation is answered on) has a route in the table, and so an
 * operation, an OpenAPI entry and the route-generated contract tests.
 */

const rows = readFileSync(new URL('../docs/endpoints.md', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => /^\| (GET|POST|DELETE) \| (\/v1\/\S+) \| (.+) \|$/.exec(line))
  .filter((m): m is RegExpExecArray => m !== null)
  .map(([, method, path, operation]) => ({ method, path, operation }));

/** Path parameters compared by position, not by name. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
const routed = new Set(routes.map((route) => `${route.method} ${shape(route.path)}`));

describe('the specification endpoint tables', () => {
  it('are all in docs/endpoints.md (118 operations)', () => {
    expect(rows).toHaveLength(118);
  });

  it.each(rows.map((row) => [`${row.method} ${row.path}`, row] as const))('%s has a route', (_label, row) => {
    expect(routed.has(`${row.method} ${shape(row.path)}`), `${row.method} ${row.path} (${row.operation}) has no route`).toBe(true);
  });
});
