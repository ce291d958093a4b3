import { readFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../src/schema/index.ts';

describe('schema.graphql', () => {
  it('is the printed Pothos schema (run `npm run schema:print` after changing types)', () => {
    const checkedIn = readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8');
    expect(checkedIn).toBe(`${printSchema(schema)}\n`);
  });
});
