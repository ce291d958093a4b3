import type { IncomingMessage } from 'node:http';
import { Response } from '@whatwg-node/server';
import type { Plugin } from 'graphql-yoga';
import type { AuditTrail } from '../request-scope.ts';
import { edgeContext, finishEdge, refusesOperation, runEdge, settle, whenReady, type AnsweredResponse, type EdgeAnswer, type EdgeContext, type EdgeStep } from '../edge/runner.ts';
import { asDomainError, refusalAnswer, toGraphQLError } from '../error-envelope.ts';
import { answerHeaders, edgeHeaders } from './headers.ts';
import { fetchEdgeRequest, type TransportRequest } from './requests.ts';

/** What a transport hands yoga with each request: its id and audit trail, and a place for its edge context (the access log reads it). */
export interface RequestFrame {
  requestId: string;
  audit: AuditTrail;
  edge?: EdgeContext & { request: TransportRequest };
}

/** Yoga's server context: the frame, and Node's request when yoga's Node adapter made the Request. */
export interface YogaServerContext {
  frame: RequestFrame;
  req?: IncomingMessage;
}

const STREAMING = /^(text\/event-stream|multipart\/mixed)/;

const toResponse = (ctx: EdgeContext & { request: TransportRequest }, answer: EdgeAnswer) =>
  new Response(ctx.request.method === 'HEAD' ? null : answer.body, { status: answer.status, headers: answerHeaders(ctx, answer) });

/**
 * The edge in yoga's pipeline (GraphQL over HTTP and SSE, and any request handed to
 * `App.handle` as a Fetch API Request): the same steps as every transport, run when the
 * request arrives. A GraphQL request they admit goes on to yoga, which executes the
 * parameters and the document the steps read (no second reading of either).
 */
export function useEdge(steps: readonly EdgeStep[]): Plugin<Record<string, unknown>, YogaServerContext> {
  return {
    onRequest({ request, url, serverContext, endResponse }) {
      const frame = serverContext.frame;
      const ctx = edgeContext(frame.requestId, 'http', fetchEdgeRequest(request, url, serverContext.req?.socket.remoteAddress ?? null), frame.audit) as EdgeContext & { request: TransportRequest };
      frame.edge = ctx;
      return settle(
        () => runEdge(steps, ctx),
        () => ctx.answer && endResponse(toResponse(ctx, ctx.answer)),
        (err) => {
          // An operation's refusal is its result: yoga answers it as it answers any (onParams).
          if (refusesOperation(ctx)) ctx.graphql!.refusal = asDomainError(err, ctx.requestId);
          else endResponse(toResponse(ctx, refusalAnswer(ctx, err)));
        },
      );
    },

    onRequestParse({ serverContext, setRequestParser }) {
      const params = serverContext.frame.edge?.graphql?.params;
      if (params) setRequestParser(() => params);
    },

    onParams({ context, setResult }) {
      const ctx = context.frame.edge;
      const refusal = ctx?.graphql?.refusal;
      if (ctx && refusal) setResult({ data: null, errors: [toGraphQLError(refusal, ctx.requestId)] });
    },

    // The document the edge parsed (within its limits) is the one executed.
    onParse({ context, setParsedDocument }) {
      const document = (context as Partial<YogaServerContext>).frame?.edge?.graphql?.document;
      if (document) setParsedDocument(document);
    },

    onResponse({ response, serverContext, setResponse }) {
      const ctx = serverContext.frame.edge;
      if (!ctx) return;
      let text: Promise<string> | undefined;
      const answered: AnsweredResponse = {
        status: response.status,
        streaming: STREAMING.test(response.headers.get('content-type') ?? ''),
        text: () => (text ??= response.text()),
      };
      return whenReady(finishEdge(steps, ctx, answered), async () => {
        // A body a step read is sent as it was read.
        const sent = withHeaders(text === undefined ? response : new Response(await text, response), edgeHeaders(ctx));
        if (sent !== response) setResponse(sent);
      });
    },
  };
}

/** `response` with the headers it lacks (a copy when its headers are immutable). */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  const missing = Object.entries(headers).filter(([name]) => !response.headers.has(name));
  if (missing.length === 0) return response;
  try {
    for (const [name, value] of missing) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [name, value] of missing) copy.headers.set(name, value);
    return copy;
  }
}
