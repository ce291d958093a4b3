import { Response } from '@whatwg-node/server';
import type { EdgePlugin, ServerContext } from './context.ts';

/**
 * The frame of every HTTP answer: the headers the edge collected (Request-Id, RateLimit-*,
 * Allow, Retry-After) on whatever answers, and what a step holds released when it is sent.
 */
export function useRequestFrame(): EdgePlugin {
  return {
    onResponse({ response, serverContext, setResponse }) {
      const edge = serverContext as ServerContext;
      const missing = Object.entries(edge.headers).filter(([k]) => !response.headers.has(k));
      if (missing.length) {
        try {
          for (const [k, v] of missing) response.headers.set(k, v);
        } catch {
          // Some answers have immutable headers: answer a copy.
          const copy = new Response(response.body, response);
          for (const [k, v] of missing) copy.headers.set(k, v);
          setResponse(copy);
        }
      }
      return releaseHeld(edge);
    },
  };
}

/** Run what the request's steps hold released (an idempotency claim's renewal), once it is answered. */
export function releaseHeld(edge: ServerContext): Promise<void> | void {
  if (edge.finally.length === 0) return;
  return Promise.all(edge.finally.map((release) => release())).then(() => undefined);
}
