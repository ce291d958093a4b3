import { Response } from '@whatwg-node/server';
import type { TenantDbFactory } from '../../db/tenant-db.ts';
import { claimIdempotencyKey, completeIdempotencyKey, IDEMPOTENCY_LEASE_MS, releaseIdempotencyKey, renewIdempotencyLease } from '../idempotency.ts';
import { refusing, type EdgePlugin, type ServerContext } from './context.ts';

const STREAMING = /^(text\/event-stream|multipart\/mixed)/;

/**
 * `Idempotency-Key` on every POST, REST and GraphQL alike (the contract's "Idempotency"): the
 * first answer is stored and replayed verbatim with `Idempotent-Replayed: true`; any answer
 * but a 5xx is remembered (errors included); a request that fails on our side, or a stream,
 * releases its key so it can be retried. While the request runs its claim is renewed, so a
 * claim outlives an owner that died by one lease at most.
 */
export function useIdempotency(tenantDb: TenantDbFactory): EdgePlugin {
  async function claim(request: Request, url: URL, edge: ServerContext, key: string): Promise<Response | void> {
    const principal = edge.principal!;
    const db = tenantDb(principal);
    const claimed = await claimIdempotencyKey(db, { businessId: principal.businessId, livemode: principal.livemode }, {
      key, method: request.method, path: url.pathname + url.search, body: edge.body ?? '', requestId: edge.requestId,
    });
    if (claimed.kind === 'replay') {
      edge.headers['Request-Id'] = claimed.response.requestId;
      return new Response(claimed.response.body, { status: claimed.response.status, headers: { 'content-type': 'application/json; charset=utf-8', 'Idempotent-Replayed': 'true' } });
    }
    edge.idempotencyKey = key;
    const renewal = setInterval(() => void renewIdempotencyLease(db, key, edge.requestId).catch(() => {}), IDEMPOTENCY_LEASE_MS / 3);
    renewal.unref();
    edge.finally.push(() => clearInterval(renewal));
  }

  /** Store the answer for replays, or release the key (a 5xx, a stream). */
  async function settle(edge: ServerContext, key: string, response: Response, setResponse: (r: Response) => void): Promise<void> {
    const db = tenantDb(edge.principal!);
    if (response.status >= 500 || STREAMING.test(response.headers.get('content-type') ?? '')) {
      await releaseIdempotencyKey(db, key, edge.requestId);
      return;
    }
    const body = await response.text();
    await completeIdempotencyKey(db, key, edge.requestId, { status: response.status, body });
    setResponse(new Response(body, { status: response.status, headers: response.headers }));
  }

  return {
    onRequest: refusing(({ request, url, serverContext }) => {
      const key = request.method === 'POST' ? request.headers.get('idempotency-key') : null;
      if (key !== null && serverContext.principal) return claim(request, url, serverContext, key);
    }),
    onResponse({ response, serverContext, setResponse }) {
      const edge = serverContext as ServerContext;
      if (edge.idempotencyKey !== null && edge.principal) return settle(edge, edge.idempotencyKey, response, setResponse);
    },
  };
}
