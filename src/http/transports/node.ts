import type { ServerResponse } from 'node:http';
import { log } from '../../log.ts';
import { answeredWhole, finishEdge, runEdge, settle, type EdgeAnswer, type EdgeContext, type EdgeStep } from '../edge/runner.ts';
import { databaseFault, errorAnswer, internalError, refusalAnswer } from '../error-envelope.ts';
import { answerHeaders } from './headers.ts';
import type { TransportRequest } from './requests.ts';

type NodeContext = EdgeContext & { request: TransportRequest };

/**
 * The Node server's own path, for every request but GraphQL's (which yoga executes): the
 * request is read from Node's request and the answer written to Node's response as they are,
 * without the Fetch API's Request and Response in between (about half of a read's CPU). The
 * steps are the edge's own, all of them, in order (src/http/edge/steps.ts).
 */
export function serveNode(steps: readonly EdgeStep[], ctx: NodeContext, res: ServerResponse): void {
  void settle(() => runEdge(steps, ctx), () => answer(steps, ctx, res, answerOf(ctx)), (err) => answer(steps, ctx, res, refusalAnswer(ctx, err)));
}

/** The answer of the step that answered; every request of this path is answered by one (routing refuses what no route takes). */
function answerOf(ctx: NodeContext): EdgeAnswer {
  if (ctx.answer) return ctx.answer;
  log.error({ request_id: ctx.requestId, path: ctx.request.pathname, kind: ctx.kind }, 'no step answered');
  return errorAnswer(internalError(), ctx.requestId, false);
}

/** The steps that ran see the answer (the audit record, the idempotent answer), then it is written. */
function answer(steps: readonly EdgeStep[], ctx: NodeContext, res: ServerResponse, given: EdgeAnswer): void {
  void settle(() => finishEdge(steps, ctx, answeredWhole(given)), () => write(ctx, res, given), (err) => {
    // A step could not record the answer (the database went away, say): the caller is told it failed.
    const fault = databaseFault(err, ctx.requestId);
    if (!fault) log.error({ request_id: ctx.requestId, err }, 'request failed after its answer was made');
    write(ctx, res, errorAnswer(fault ?? internalError(), ctx.requestId, false));
  });
}

function write(ctx: NodeContext, res: ServerResponse, given: EdgeAnswer): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(given.status, answerHeaders(ctx, given));
  res.end(ctx.request.method === 'HEAD' || given.body === null ? undefined : given.body);
}
