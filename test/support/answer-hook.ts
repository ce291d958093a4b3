import { afterEach } from 'vitest';

/*
 * The one response hook of the test suites (vitest.config.ts's setupFiles: it runs in every
 * test file). It wraps the global fetch, so every answer a test gets over HTTP passes through
 * it: restClient's and graphqlClient's (test/support/app.ts), the typed client's, and a test's
 * own `fetch` to /v1 or /graphql. An answer of a service under test (the origins
 * test/support/under-test.ts's `checkAnswersOf` registered) is checked before the test sees
 * it: a /v1 answer against the OpenAPI document that service serves (its operation, status,
 * schema and error code), a /graphql answer's errors against the error catalogue. A mismatch
 * rejects the fetch with what is wrong, and fails the test in `afterEach` even when the test
 * caught that rejection. The checker is loaded at the first answer to check, so a unit test
 * that never calls the service pays nothing for it.
 */

import { isCheckedUrl } from './under-test.ts';

type Hook = typeof import('./openapi-check.ts');

const rawFetch = globalThis.fetch;
let hook: Promise<Hook> | null = null;
let loaded: Hook | null = null;

function checkerModule(): Promise<Hook> {
  return (hook ??= import('./openapi-check.ts').then((m) => (loaded = m)));
}

globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await rawFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!isCheckedUrl(url)) return res;
  const module = loaded ?? (await checkerModule());
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  // A stream (a subscription over SSE) is read by the test as it comes; an OPTIONS preflight is the edge's CORS answer.
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream') || method === 'OPTIONS') return res;
  const text = method === 'HEAD' ? '' : await res.clone().text();
  await module.checkFetched(method, url, res, text);
  return res;
} as typeof fetch;

afterEach(() => {
  const problems = loaded?.takeProblems() ?? [];
  if (problems.length) throw new Error(`${problems.length} answer(s) outside the OpenAPI document or the error catalogue:\n\n${problems.join('\n\n')}`);
});
