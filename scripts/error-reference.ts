import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { registeredErrors, type ErrorDefinition } from '../src/domain/shared/errors.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every error catalogue of the project (`*.errors.ts` under src/), loaded so that each code registers. */
export async function loadCatalogues(): Promise<ErrorDefinition[]> {
  const files = (await readdir(path.join(root, 'src'), { recursive: true })).filter((f) => f.endsWith('.errors.ts'));
  for (const file of files.sort()) await import(pathToFileURL(path.join(root, 'src', file)).href);
  return registeredErrors();
}

/** The error reference (docs/errors.md): every code once, with its type, status and meaning. */
export function errorReference(definitions: ErrorDefinition[]): string {
  const rows = definitions.map((d) => `| \`${d.code}\` | ${d.status} | \`${d.type}\` | ${d.details.map((x) => `\`${x}\``).join(', ') || ''} | ${d.description.replace(/\|/g, '\\|')} |`);
  return [
    '# Error codes',
    '',
    'Every error answers in one shape, over REST and GraphQL alike:',
    '',
    '```json',
    '{"error": {"type": "invalid_request", "code": "booking_not_ready", "message": "The booking is not ready: security deposit is pending.",',
    '           "request_id": "req_...", "unmet_gates": ["deposit"]}}',
    '```',
    '',
    'Over GraphQL the same fields are in each error\'s `extensions`. `code` is stable: switch on it,',
    'not on `message`. `param` names the offending field of a `validation_error`; some codes carry',
    'more facts (the Details column). Each operation of the OpenAPI document lists the codes it can',
    'answer (`x-error-codes`). This file is generated from the error catalogues of the code',
    '(`npm run docs:errors`); a test keeps it current.',
    '',
    '| Code | HTTP | Type | Details | When, and what to do |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
