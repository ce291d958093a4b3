import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileRoutes } from '../rest-adapter/adapter.ts';
import { isHandlerRoute } from '../rest-adapter/route.ts';
import { routes } from '../rest-adapter/routes/index.ts';
import { schema } from '../src/schema/index.ts';

/*
 * The README's "Operations" tables list every route of the route table, each with the GraphQL
 * field it runs, the permission its operation declares (and whether publishable keys or only
 * test secret keys may call it) and its release stage; no row names a route that is gone.
 */

const HEADER = '| REST | GraphQL | Permission | Stage |';

interface Row {
  method: string;
  path: string;
  field: string;
  permission: string;
  stage: string;
}

/** The rows of every table with the operations header in README.md. */
function readmeRows(): Row[] {
  const lines = readFileSync(new URL('../README.md', import.meta.url), 'utf8').split('\n');
  const rows: Row[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== HEADER) continue;
    for (i += 2; i < lines.length && lines[i].startsWith('|'); i++) {
      const cells = lines[i].split('|').slice(1, -1).map((c) => c.trim());
      const [method, path] = cells[0].split(' ');
      rows.push({ method, path, field: cells[1].replace(/`/g, ''), permission: cells[2], stage: cells[3] });
    }
  }
  return rows;
}

/** Path parameters compared by position, not by name. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
const key = (method: string, path: string) => `${method} ${shape(path)}`;

const expected = new Map(
  compileRoutes(schema, routes).map((c) => {
    const { access } = c.operation!;
    const permission =
      (access.permission ? `\`${access.permission}\`` : 'any') +
      (access.publishable ? ', publishable keys too' : '') +
      (access.sandbox ? ', test secret keys only' : '');
    const row: Row = {
      method: c.route.method,
      path: c.route.path,
      field: isHandlerRoute(c.route) ? c.operation!.name : c.route.field.split('.')[1],
      permission,
      stage: c.route.stage === 'first_release' ? 'first release' : 'later scope',
    };
    return [key(row.method, row.path), row] as const;
  }),
);

describe("the README's operations table", () => {
  const rows = readmeRows();
  const listed = new Map(rows.map((row) => [key(row.method, row.path), row]));

  it('lists every route of the route table', () => {
    const missing = [...expected.keys()].filter((k) => !listed.has(k)).map((k) => `${expected.get(k)!.method} ${expected.get(k)!.path}`);
    expect(missing, `routes missing from README.md's Operations tables:\n${missing.join('\n')}`).toEqual([]);
  });

  it('lists no route twice and none that the route table lacks', () => {
    expect(rows.length - listed.size, 'rows listed twice').toBe(0);
    const stale = rows.filter((row) => !expected.has(key(row.method, row.path))).map((row) => `${row.method} ${row.path}`);
    expect(stale, `rows of README.md's Operations tables with no route:\n${stale.join('\n')}`).toEqual([]);
  });

  it('gives each route its GraphQL field, permission and stage', () => {
    const wrong = rows
      .filter((row) => expected.has(key(row.method, row.path)))
      .filter((row) => {
        const want = expected.get(key(row.method, row.path))!;
        return row.path !== want.path || row.field !== want.field || row.permission !== want.permission || row.stage !== want.stage;
      })
      .map((row) => {
        const want = expected.get(key(row.method, row.path))!;
        return `${row.method} ${row.path}: README says ${row.path} | ${row.field} | ${row.permission} | ${row.stage}; the code: ${want.path} | ${want.field} | ${want.permission} | ${want.stage}`;
      });
    expect(wrong, wrong.join('\n')).toEqual([]);
  });
});
