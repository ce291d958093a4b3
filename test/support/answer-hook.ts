import { afterAll, afterEach } from 'vitest';

/*
 * The one response hook of the test suites (vitest.config.ts's setupFiles: it runs in every
 * test file). It wraps the global fetch, so every answer a test gets over HTTP passes through
 * it: restClient's and graphqlClient's (test/support/app.ts), the typed client's, and a test's
 * own `fetch` to /v1 or /graphql; startTestApp hooks its app's in-process `App.handle` too. An
 * answer of a service under test (the origins test/support/under-test.ts's `checkAnswersOf`
 * registered) is checked before the test sees it: a /v1 answer against the OpenAPI document that service serves (its operation, status,
 * schema and error code), a /graphql answer's errors against the error catalogue. A mismatch
 * rejects the fetch with what is wrong, and fails the test in `afterEach` even when the test
 * caught that rejection (one made in a file's `afterAll`, in the hook's own `afterAll`). The checker is loaded at the first answer to check, so a unit test
 * that never calls the service pays nothing for it.
 */

import { isCheckedPath, isCheckedUrl } from './under-test.ts';

type Hook = typeof import('./openapi-check.ts');

// Node's own fetch, kept on the global the first time: a wrapper always wraps it, never another wrapper.
const RAW_FETCH = Symbol.for('rental-api.tests.raw-fetch');
const rawFetch: typeof fetch = ((globalThis as Record<symbol, unknown>)[RAW_FETCH] ??= globalThis.fetch) as typeof fetch;
let hook: Promise<Hook> | null = null;
let loaded: Hook | null = null;

function checkerModule(): Promise<Hook> {
  return (hook ??= import('./openapi-check.ts').then((m) => (loaded = m)));
}

/** Check one answer of the service at `service` (its origin) to `method url`; rejects with what is wrong. */
async function check(method: string, url: URL, service: string, res: Response): Promise<void> {
  // A stream (a subscription over SSE) is read by the test as it comes; an OPTIONS preflight is the edge's CORS answer.
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream') || method === 'OPTIONS') return;
  const text = method === 'HEAD' ? '' : await res.clone().text();
  await (loaded ?? (await checkerModule())).checkFetched(method, url, res, text, service);
}

globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await rawFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (isCheckedUrl(url)) await check((init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(), url, url.origin, res);
  return res;
} as typeof fetch;

/**
 * The same hook on a test's in-process requests (`App.handle`, no socket): whatever host the
 * request names, its answer is checked against the document of the service at `baseUrl`.
 * startTestApp hooks its app's `handle` so.
 */
export function checkHandledAnswers(app: { handle(request: Request): Promise<Response> }, baseUrl: string): void {
  const handle = app.handle.bind(app);
  app.handle = async (request) => {
    const res = await handle(request);
    const url = new URL(request.url);
    if (isCheckedPath(url.pathname)) await check(request.method.toUpperCase(), url, new URL(baseUrl).origin, res);
    return res;
  };
}

function failOnProblems() {
  const problems = loaded?.takeProblems() ?? [];
  if (problems.length) throw new Error(`${problems.length} answer(s) outside the OpenAPI document or the error catalogue:\n\n${problems.join('\n\n')}`);
}

afterEach(failOnProblems);
afterAll(() => {
  // ANSWER_HOOK_STATS=1: how many answers this file's tests had checked, by kind.
  if (process.env.ANSWER_HOOK_STATS) console.log(`answer hook: ${JSON.stringify(loaded?.answerStats() ?? 'no answer of a service under test')}`);
  // An answer of a file's last hooks (afterAll), after every test's afterEach.
  failOnProblems();
});
