/**
 * The origins of the services under test (a light module: the answer hook,
 * test/support/answer-hook.ts, reads it for every fetch of every test file). startTestApp,
 * spawnServer, restClient and graphqlClient register theirs; answers of other servers
 * (stand-ins, webhook receivers) are not the OpenAPI document's business.
 */
const services = new Set<string>();

/** Check every answer of the service at `baseUrl` from now on (its /v1 paths and /graphql). */
export function checkAnswersOf(baseUrl: string): void {
  services.add(new URL(baseUrl).origin);
}

/** Whether the hook checks the answer of a path of the service: its /v1 paths and /graphql. */
export function isCheckedPath(pathname: string): boolean {
  // The document itself is the checker's source (an edge path): never checked, so no recursion.
  if (pathname === '/v1/openapi.json') return false;
  return pathname === '/v1' || pathname.startsWith('/v1/') || pathname === '/graphql';
}

/** Whether the hook checks the answer of this URL: a checked path of a service under test. */
export const isCheckedUrl = (url: URL): boolean => services.has(url.origin) && isCheckedPath(url.pathname);

const extraCodes = new Set<string>();

/**
 * Error codes a test's own addition to the service answers, which the document cannot list (a
 * throwaway edge step that refuses with a code of its own): the answer hook still checks such
 * an answer's envelope, not that its operation lists the code. Only for such a test.
 */
export function allowTestErrorCode(code: string): void {
  extraCodes.add(code);
}

/** Whether a test declared this code its own (allowTestErrorCode). */
export const isTestErrorCode = (code: unknown): boolean => typeof code === 'string' && extraCodes.has(code);
