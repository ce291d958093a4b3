import type { EdgeAnswer, EdgeContext } from '../edge/runner.ts';
import type { TransportRequest } from './requests.ts';

/** The headers the edge adds to whatever answers a request (names in lower case, as the Fetch API writes them). */
export function edgeHeaders(ctx: EdgeContext & { request: TransportRequest }): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in ctx.headers) headers[name.toLowerCase()] = ctx.headers[name];
  // A body refused before its end: its unread rest would stand where the connection's next request should begin.
  if (ctx.request.bodyAbandoned()) headers.connection = 'close';
  return headers;
}

/** An answer's own headers, then the edge's (the answer's win), and a known length. */
export function answerHeaders(ctx: EdgeContext & { request: TransportRequest }, given: EdgeAnswer): Record<string, string> {
  const headers = edgeHeaders(ctx);
  for (const name in given.headers) headers[name.toLowerCase()] = given.headers[name];
  if (given.body !== null && headers['content-length'] === undefined) headers['content-length'] = String(typeof given.body === 'string' ? Buffer.byteLength(given.body) : given.body.byteLength);
  return headers;
}
