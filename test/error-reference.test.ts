import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { compileRoutes } from '../rest-adapter/adapter.ts';
import { openApiDocument } from '../rest-adapter/openapi.ts';
import { routes } from '../rest-adapter/routes/index.ts';
import { schema } from '../src/schema/index.ts';
import { errorReference, loadCatalogues } from '../scripts/error-reference.ts';

describe('error reference', () => {
  it('docs/errors.md lists every code of the catalogues once, as generated (npm run docs:errors)', async () => {
    const definitions = await loadCatalogues();
    const codes = definitions.map((d) => d.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(await readFile(new URL('../docs/errors.md', import.meta.url), 'utf8')).toBe(errorReference(definitions));
  });

  it('every code an operation of the OpenAPI document lists is in the reference, with its status as a response', async () => {
    const known = new Set((await loadCatalogues()).map((d) => d.code));
    const doc = openApiDocument(compileRoutes(schema, routes));
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods as Record<string, { 'x-error-codes': string[]; responses: Record<string, { 'x-error-codes'?: string[] }> }>)) {
        for (const code of op['x-error-codes']) expect(known, `${method} ${path}: ${code}`).toContain(code);
        const byStatus = Object.values(op.responses).flatMap((r) => r['x-error-codes'] ?? []);
        expect(byStatus.sort(), `${method} ${path}`).toEqual([...op['x-error-codes']].sort());
      }
    }
  });
});
