import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileRoutes } from '../rest-adapter/adapter.ts';
import { isHandlerRoute } from '../rest-adapter/route.ts';
import { routes } from '../rest-adapter/routes/index.ts';
import { operationsReference } from '../scripts/print-operations.ts';
import { schema } from '../src/schema/index.ts';

/*
 * docs/operations.md is generated (npm run docs:operations) and must be what the generator
 * prints today. Its tables, read back, list every route of the route table once, each with the
 * GraphQL field it runs, the permission its operation declares, the keys that may call it
 * (publishable keys too, or only test secret keys) and its release stage; no row names a route
 * that is gone.
 */

const HEADER = '| REST | GraphQL | Summary | Permission | Keys | Stage |';
const page = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');

interface Row {
  method: string;
  path: string;
  field: string;
  summary: string;
  permission: string;
  keys: string;
  stage: string;
}

/** The rows of every table with the operations header in docs/operations.md. */
function documentRows(): Row[] {
  const lines = page.split('\n');
  const rows: Row[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== HEADER) continue;
    for (i += 2; i < lines.length && lines[i].startsWith('|'); i++) {
      const cells = lines[i].split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim().replace(/\\\|/g, '|'));
      const [method, path] = cells[0].split(' ');
      rows.push({ method, path, field: cells[1].replace(/`/g, ''), summary: cells[2], permission: cells[3], keys: cells[4], stage: cells[5] });
    }
  }
  return rows;
}

/** Path parameters compared by position, not by name. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
const key = (method: string, path: string) => `${method} ${shape(path)}`;

const expected = new Map(
  compileRoutes(schema, routes).map((c) => {
    const { access, summary } = c.operation!;
    const row: Row = {
      method: c.route.method,
      path: c.route.path,
      field: isHandlerRoute(c.route) ? c.operation!.name : c.route.field.split('.')[1],
      summary,
      permission: access.permission ? `\`${access.permission}\`` : 'none',
      keys: access.sandbox
        ? 'test secret only'
        : access.browser
          ? 'create' in access.browser
            ? 'secret, publishable (browser booking)'
            : "secret, publishable with the booking's client_secret"
          : access.publishable
            ? 'secret, publishable'
            : 'secret',
      stage: c.route.stage === 'first_release' ? 'first release' : 'later scope',
    };
    return [key(row.method, row.path), row] as const;
  }),
);

describe('docs/operations.md', () => {
  it('is what npm run docs:operations writes from the route table today', () => {
    expect(page, 'docs/operations.md is out of date: run npm run docs:operations').toBe(operationsReference());
  });

  const rows = documentRows();
  const listed = new Map(rows.map((row) => [key(row.method, row.path), row]));

  it('lists every route of the route table', () => {
    const missing = [...expected.keys()].filter((k) => !listed.has(k)).map((k) => `${expected.get(k)!.method} ${expected.get(k)!.path}`);
    expect(missing, `routes missing from docs/operations.md:\n${missing.join('\n')}`).toEqual([]);
  });

  it('lists no route twice and none that the route table lacks', () => {
    expect(rows.length - listed.size, 'rows listed twice').toBe(0);
    const stale = rows.filter((row) => !expected.has(key(row.method, row.path))).map((row) => `${row.method} ${row.path}`);
    expect(stale, `rows of docs/operations.md with no route:\n${stale.join('\n')}`).toEqual([]);
  });

  it('gives each route its GraphQL field, summary, permission, keys and stage', () => {
    const wrong = rows
      .filter((row) => expected.has(key(row.method, row.path)))
      .filter((row) => JSON.stringify(row) !== JSON.stringify(expected.get(key(row.method, row.path))))
      .map((row) => `${row.method} ${row.path}: the page says ${JSON.stringify(row)}; the code: ${JSON.stringify(expected.get(key(row.method, row.path)))}`);
    expect(wrong, wrong.join('\n')).toEqual([]);
  });

  it('marks the publishable operations and the sandbox-only ones', () => {
    // The contract's public allow list and the sandbox: a generator that lost the distinction fails here.
    expect(listed.get(key('POST', '/v1/quotes'))?.keys).toBe('secret, publishable');
    expect(listed.get(key('POST', '/v1/bookings'))?.keys).toBe('secret, publishable (browser booking)');
    expect(listed.get(key('GET', '/v1/bookings/{booking_id}'))?.keys).toBe("secret, publishable with the booking's client_secret");
    expect(listed.get(key('POST', '/v1/bookings/{booking_id}/cancel'))?.keys).toBe('secret');
    expect(listed.get(key('POST', '/v1/test/reset'))?.keys).toBe('test secret only');
  });
});
