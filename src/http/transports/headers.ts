import type { EdgeAnswer, EdgeContext } from '../edge/runner.ts';
import type { TransportRequest } from './requests.ts';

// Header names in lower case, each worked out once: the edge names the same few on every request.
const lowerCase = new Map<string, string>();
function lower(name: string): string {
  let lowered = lowerCase.get(name);
  if (lowered === undefined) {
    lowered = name.toLowerCase();
    if (lowerCase.size < 1_000) lowerCase.set(name, lowered);
  }
  return lowered;
}

/** The headers the edge adds to whatever answers a request (names in lower case, as the Fetch API writes them). */
export function edgeHeaders(ctx: EdgeContext & { request: TransportRequest }): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in ctx.headers) headers[lower(name)] = ctx.headers[name];
  // A body refused before its end: its unread rest would stand where the connection's next request should begin.
  if (ctx.request.bodyAbandoned()) headers.connection = 'close';
  return headers;
}

/** An answer's own headers, then the edge's (the answer's win), and a known length. */
export function answerHeaders(ctx: EdgeContext & { request: TransportRequest }, given: EdgeAnswer): Record<string, string> {
  const headers = edgeHeaders(ctx);
  for (const name in given.headers) headers[lower(name)] = given.headers[name];
  if (given.body !== null && headers['content-length'] === undefined) headers['content-length'] = String(typeof given.body === 'string' ? Buffer.byteLength(given.body) : given.body.byteLength);
  return headers;
}
