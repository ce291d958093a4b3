import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createdList, eventTypesTable, idPrefixTable, listParametersTable, MACHINES, stateTable } from './support/doc-tables.ts';

/*
 * docs/conventions.md holds the tables that come from the code exactly as the code gives them
 * today: the operations answering 201, the lists' filters, the id prefixes, every lifecycle
 * and the event types. A change of the code that the page does not follow fails here, with
 * the table as it should now read.
 */

const page = readFileSync(new URL('../docs/conventions.md', import.meta.url), 'utf8');

const tables: [string, string][] = [
  ['the operations answering 201', createdList()],
  ['the lists and their filters', listParametersTable()],
  ['the id prefixes', idPrefixTable()],
  ...MACHINES.map((machine): [string, string] => [`the ${machine.object} lifecycle`, `### ${machine.object}\n\n${stateTable(machine)}\n`]),
  ['the event types', eventTypesTable()],
];

describe('docs/conventions.md', () => {
  it.each(tables)('shows %s as the code has them', (_name, table) => {
    expect(page.includes(table), `docs/conventions.md should hold, verbatim:\n\n${table}`).toBe(true);
  });
});
