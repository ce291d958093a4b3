import type { ServerResponse } from 'node:http';
import { log } from '../../log.ts';
import { answeredWhole, finishEdge, runEdge, type EdgeAnswer, type EdgeContext, type EdgeStep } from '../edge/runner.ts';
import { asDomainError, errorAnswer } from '../error-envelope.ts';
import { internalError } from '../error-envelope.ts';
import type { TransportRequest } from './requests.ts';

type NodeContext = EdgeContext & { request: TransportRequest };

/**
 * The Node server's own path, for every request but GraphQL's (which yoga executes): the
 * request is read from Node's request and the answer written to Node's response as they are,
 * without the Fetch API's Request and Response in between (about half of a read's CPU). The
 * steps are the edge's own, all of them, in order (src/http/edge/steps.ts).
 */
export function serveNode(steps: readonly EdgeStep[], ctx: NodeContext, res: ServerResponse): void {
  let ran: void | Promise<void>;
  try {
    ran = runEdge(steps, ctx);
  } catch (err) {
    return answer(steps, ctx, res, refusal(ctx, err));
  }
  if (ran) ran.then(() => answer(steps, ctx, res, answerOf(ctx)), (err: unknown) => answer(steps, ctx, res, refusal(ctx, err)));
  else answer(steps, ctx, res, answerOf(ctx));
}

/** The answer of the step that answered; every request of this path is answered by one (routing refuses what no route takes). */
function answerOf(ctx: NodeContext): EdgeAnswer {
  if (ctx.answer) return ctx.answer;
  log.error({ request_id: ctx.requestId, path: ctx.request.pathname, kind: ctx.kind }, 'no step answered');
  return errorAnswer(internalError(), ctx.requestId, false);
}

const refusal = (ctx: NodeContext, err: unknown) => errorAnswer(asDomainError(err, ctx.requestId), ctx.requestId, false);

function answer(steps: readonly EdgeStep[], ctx: NodeContext, res: ServerResponse, given: EdgeAnswer): void {
  let finished: void | Promise<void>;
  try {
    finished = finishEdge(steps, ctx, answeredWhole(given));
  } catch (err) {
    return write(ctx, res, failedToFinish(ctx, err));
  }
  if (finished) finished.then(() => write(ctx, res, given), (err: unknown) => write(ctx, res, failedToFinish(ctx, err)));
  else write(ctx, res, given);
}

/** A step could not record the answer (the audit record, the idempotent answer): the caller is told it failed. */
function failedToFinish(ctx: NodeContext, err: unknown): EdgeAnswer {
  log.error({ request_id: ctx.requestId, err }, 'request failed after its answer was made');
  return errorAnswer(internalError(), ctx.requestId, false);
}

/** The answer with the edge's headers (its own win), names in lower case as the Fetch API writes them. */
function write(ctx: NodeContext, res: ServerResponse, given: EdgeAnswer): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(given.status, answerHeaders(ctx, given));
  res.end(ctx.request.method === 'HEAD' || given.body === null ? undefined : given.body);
}

/** What every transport writes as an answer's headers: its own, then the edge's; a known length; closing the connection after a body left unread. */
export function answerHeaders(ctx: EdgeContext & { request: TransportRequest }, given: EdgeAnswer): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in given.headers) headers[name.toLowerCase()] = given.headers[name];
  for (const name in ctx.headers) {
    const lower = name.toLowerCase();
    if (!(lower in headers)) headers[lower] = ctx.headers[name];
  }
  if (given.body !== null && headers['content-length'] === undefined) headers['content-length'] = String(typeof given.body === 'string' ? Buffer.byteLength(given.body) : given.body.byteLength);
  if (ctx.request.bodyAbandoned()) headers.connection = 'close';
  return headers;
}
