import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { newId } from '../../domain/shared/ids.ts';
import { log } from '../../log.ts';
import { EdgeErrors } from '../edge.errors.ts';
import { answeredWhole, edgeContext, finishEdge, GRAPHQL_PATH, runEdge, settle, type EdgeAnswer, type EdgeContext, type EdgeStep } from '../edge/runner.ts';
import { databaseFault, errorAnswer, internalError, refusalAnswer } from '../error-envelope.ts';
import { AuditTrail, requestScope } from '../request-scope.ts';
import { answerHeaders } from './headers.ts';
import { nodeEdgeRequest, nodeRequestUrl, type TransportRequest } from './requests.ts';
import type { RequestFrame } from './yoga.ts';

type NodeContext = EdgeContext & { request: TransportRequest };

/**
 * A Node server's request listener: each request gets its frame (id, audit trail) and runs in
 * its request scope, observed (the access log and request metrics) whichever path answers.
 * GraphQL goes to `graphql` when the server takes it; every other request runs `steps`. The
 * API (src/server.ts) and the worker's health and metrics port (src/http/probe-server.ts) are
 * both served by it.
 */
export function nodeListener(
  steps: readonly EdgeStep[],
  options: {
    observe(req: IncomingMessage, res: ServerResponse, frame: RequestFrame): void;
    graphql?(req: IncomingMessage, res: ServerResponse, frame: RequestFrame): void;
    /** The authorization server of OAuth apps (a Koa app of its own: oidc-provider), for the paths it takes. */
    oauth?: { takes(pathname: string): boolean; serve(req: IncomingMessage, res: ServerResponse, origin: string): void };
  },
): (req: IncomingMessage, res: ServerResponse) => void {
  return function listener(req, res) {
    const f: RequestFrame = { requestId: newId('request'), audit: new AuditTrail() };
    options.observe(req, res, f);
    requestScope.run(f, () => {
      const url = nodeRequestUrl(req);
      // No step can read a request that has no URL: refused here, in the envelope.
      if (url === null) return refuseUnreadable(res, f.requestId);
      if (options.graphql && url.pathname === GRAPHQL_PATH) return options.graphql(req, res, f);
      if (options.oauth?.takes(url.pathname)) {
        res.setHeader('request-id', f.requestId);
        return options.oauth.serve(req, res, url.origin);
      }
      const ctx = edgeContext(f.requestId, 'http', nodeEdgeRequest(req, url), f.audit);
      f.edge = ctx as RequestFrame['edge'];
      serveNode(steps, f.edge!, res);
    });
  };
}

/**
 * A request Node's parser refused before any listener saw it (`clientError`): a line and
 * headers over its limit (431), or bytes that are not HTTP (400). Answered in the envelope,
 * as every refusal is, instead of Node's bare status line; the connection then closes.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = newId('request');
  const answer = errorAnswer(err.code === 'HPE_HEADER_OVERFLOW' ? EdgeErrors.headersTooLarge() : EdgeErrors.requestMalformed(), requestId, false);
  const body = typeof answer.body === 'string' ? answer.body : '';
  const status = `${answer.status} ${STATUS_CODES[answer.status] ?? ''}`.trim();
  const headers = { ...answer.headers, 'request-id': requestId, 'content-length': String(Buffer.byteLength(body)), connection: 'close' };
  socket.end(`HTTP/1.1 ${status}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
}

/** A request whose Host and target make no URL (no path could read it). */
function refuseUnreadable(res: ServerResponse, requestId: string): void {
  const answer = errorAnswer(EdgeErrors.requestTargetInvalid(), requestId, false);
  res.writeHead(answer.status, { ...answer.headers, 'request-id': requestId, connection: 'close' });
  res.end(answer.body);
}

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
