import { createServer, type Server } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import { Redis } from 'ioredis';
import type { Database } from './db/database.ts';
import type { AppConfig } from './config.ts';
import { authenticate } from './domain/access/api-keys.ts';
import { assertKeyEnvironment } from './domain/access/permissions.ts';
import { expireHolds } from './domain/bookings/booking-holds.ts';
import { DomainError } from './domain/shared/errors.ts';
import { newId } from './domain/shared/ids.ts';
import { envelope, errorExtensions, internalError, jsonResponse } from './http/error-envelope.ts';
import { createGraphQLServer, newAuditNote, type ServerContext } from './http/graphql-server.ts';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from './http/idempotency.ts';
import { memoryRateLimiter, rateLimitHeaders, redisRateLimiter, type RateLimiter } from './http/rate-limit.ts';
import { requestScope } from './http/request-scope.ts';
import { attachGraphQLWebSocket } from './http/websocket.ts';
import { compileRoutes, matchRoute, runRoute } from '../rest-adapter/adapter.ts';
import { createEventPubSub, startEventRelay } from './events/event-relay.ts';
import { startDeliveryWorker, workerOptions, type DeliveryWorker } from './webhooks/delivery-worker.ts';
import { openApiDocument } from '../rest-adapter/openapi.ts';

export interface App {
  /** The whole API as a fetch handler: REST /v1, GraphQL /graphql. */
  handle(request: Request): Promise<Response>;
  /** The in-process webhook delivery worker, when enabled. */
  worker: DeliveryWorker | null;
  yoga: ReturnType<typeof createGraphQLServer>;
  listen(port: number, host: string): Promise<Server>;
  close(): Promise<void>;
  db: Database;
}

/** Build the service over an open database. `npm start` and the tests both use this. */
export async function buildApp(options: { db: Database; config: AppConfig; now?: () => Date }): Promise<App> {
  const { db, config } = options;
  const now = options.now ?? (() => new Date());
  const prisma = db.prisma;
  const events = createEventPubSub(config.redisUrl);
  const relay = await startEventRelay(db, events.pubsub);
  const worker = config.webhookWorker ? await startDeliveryWorker(db, workerOptions(config)) : null;
  const yoga = createGraphQLServer({ prisma, config: { holdMinutes: config.holdMinutes, quoteTtlMinutes: config.quoteTtlMinutes }, pubsub: events.pubsub, now });
  const compiled = compileRoutes(yoga.getEnveloped().schema);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : null;
  const limiter: RateLimiter = redis ? redisRateLimiter(redis) : memoryRateLimiter();
  const openapi = JSON.stringify(openApiDocument(compiled));

  async function handle(request: Request): Promise<Response> {
    const requestId = newId('request');
    return requestScope.run({ requestId }, async () => {
      const headers: Record<string, string> = { 'Request-Id': requestId };
      const fail = (error: DomainError) => {
        const e = envelope(error, requestId);
        // On /graphql, the same error in GraphQL's shape, with the contract's fields in extensions.
        if (new URL(request.url).pathname === '/graphql') {
          return jsonResponse(e.status, { errors: [{ message: error.message, extensions: errorExtensions(error, requestId) }] }, headers);
        }
        return jsonResponse(e.status, e.body, headers);
      };
      try {
        const response = await route(request, requestId, headers);
        for (const [k, v] of Object.entries(headers)) if (!response.headers.has(k)) response.headers.set(k, v);
        return response;
      } catch (err) {
        if (err instanceof DomainError) return fail(err);
        console.error(`[${requestId}]`, err);
        return fail(internalError());
      }
    });
  }

  function hostEnvironment(hostname: string): 'live' | 'test' | null {
    if (config.sandboxHost && hostname === config.sandboxHost) return 'test';
    if (config.productionHost && hostname === config.productionHost) return 'live';
    return null;
  }

  async function route(request: Request, requestId: string, headers: Record<string, string>): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    if (url.pathname === '/v1/openapi.json' && method === 'GET') {
      return new Response(openapi, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    }
    if (url.pathname === '/health') return jsonResponse(200, { ok: true });
    const isGraphQL = url.pathname === '/graphql';
    if (isGraphQL && method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html')) {
      return yoga.fetch(request, {} as ServerContext); // GraphiQL page; operations still need a key
    }
    const match = isGraphQL ? null : matchRoute(compiled, method, url.pathname);
    if (match?.kind === 'not_found') throw new DomainError('invalid_request', 'route_not_found', `Unrecognized request URL (${method} ${url.pathname}).`, { status: 404 });
    if (match?.kind === 'method_not_allowed') {
      headers.Allow = match.allowed.join(', ');
      throw new DomainError('invalid_request', 'method_not_allowed', `${method} is not allowed on ${url.pathname}; use ${match.allowed.join(' or ')}.`, { status: 405 });
    }

    const principal = await authenticate(prisma, request.headers.get('authorization'));
    assertKeyEnvironment(principal, hostEnvironment(url.hostname));
    const decision = await limiter.hit(principal.keyId, principal.livemode ? config.rateLimitLive : config.rateLimitTest);
    Object.assign(headers, rateLimitHeaders(decision));
    if (!decision.allowed) {
      headers['Retry-After'] = String(decision.resetSeconds);
      throw new DomainError('rate_limit_error', 'rate_limited', `Too many requests for this key: ${decision.limit} per second. Retry after ${decision.resetSeconds} s.`);
    }

    const bodyText = method === 'GET' || method === 'HEAD' ? '' : await readBody(request, config.bodyLimitBytes);
    const idempotencyKey = method === 'POST' ? request.headers.get('idempotency-key') : null;
    const serverContext: ServerContext = { principal, requestId, idempotencyKey, audit: newAuditNote() };
    const scope = { businessId: principal.businessId, livemode: principal.livemode };

    if (idempotencyKey !== null) {
      const claim = await claimIdempotencyKey(prisma, scope, { key: idempotencyKey, method, path: url.pathname + url.search, body: bodyText, requestId });
      if (claim.kind === 'replay') {
        headers['Request-Id'] = claim.response.requestId;
        return new Response(claim.response.body, { status: claim.response.status, headers: { 'content-type': 'application/json; charset=utf-8', 'Idempotent-Replayed': 'true' } });
      }
    }

    let response: Response;
    try {
      response = await dispatch(request, url, bodyText, match, serverContext);
    } catch (err) {
      const answered = err instanceof DomainError && err.type !== 'internal_error' ? envelope(err, requestId) : null;
      if (idempotencyKey !== null) {
        // An answered error is part of the key's history, like a success.
        if (answered) await completeIdempotencyKey(prisma, scope, idempotencyKey, { status: answered.status, body: JSON.stringify(answered.body) });
        else await releaseIdempotencyKey(prisma, scope, idempotencyKey);
      }
      await audit(serverContext, method, url.pathname, answered?.status ?? 500);
      throw err;
    }
    if (idempotencyKey !== null) {
      // A stream (a subscription over SSE) has no end to remember: the key is released.
      const streaming = /^(text\/event-stream|multipart\/mixed)/.test(response.headers.get('content-type') ?? '');
      if (response.status >= 500 || streaming) await releaseIdempotencyKey(prisma, scope, idempotencyKey);
      else {
        const text = await response.clone().text();
        await completeIdempotencyKey(prisma, scope, idempotencyKey, { status: response.status, body: text });
      }
    }
    await audit(serverContext, method, url.pathname, response.status);
    return response;
  }

  async function dispatch(request: Request, url: URL, bodyText: string, match: ReturnType<typeof matchRoute> | null, serverContext: ServerContext): Promise<Response> {
    if (!match) {
      const forwarded = new Request(request.url, { method: request.method, headers: request.headers, body: bodyText || undefined });
      return yoga.fetch(forwarded, serverContext);
    }
    if (match.kind !== 'found') throw new Error('unreachable');
    let body: unknown = {};
    if (bodyText.trim() !== '') {
      try {
        body = JSON.parse(bodyText);
      } catch {
        throw new DomainError('invalid_request', 'invalid_json', 'The request body is not valid JSON.');
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new DomainError('invalid_request', 'invalid_json', 'The request body must be a JSON object.');
    }
    const result = await runRoute(yoga, match, request, url, body, serverContext);
    return jsonResponse(result.status, result.body);
  }

  /** One audit row for every write, whatever its outcome (REST POST and GraphQL mutations). */
  async function audit(ctx: ServerContext, method: string, path: string, status: number) {
    const isWrite = path === '/graphql' ? ctx.audit.write : method !== 'GET' && method !== 'HEAD';
    if (!isWrite) return;
    await prisma.auditLog.create({
      data: {
        id: newId('audit'),
        businessId: ctx.principal.businessId,
        livemode: ctx.principal.livemode,
        requestId: ctx.requestId,
        apiKeyId: ctx.principal.keyId,
        memberId: ctx.principal.memberId,
        method,
        path,
        operation: ctx.audit.operation,
        status,
        bookingId: ctx.audit.bookingId ?? /\/bookings\/(bk_[0-9a-z]+)/.exec(path)?.[1] ?? null,
      },
    });
  }

  const sweeper = config.holdSweepMs > 0 ? setInterval(() => void expireHolds(prisma, now()).catch((err) => console.error('hold sweep failed', err)), config.holdSweepMs) : null;
  sweeper?.unref();

  let server: Server | null = null;
  let websocket: { close(): Promise<void> } | null = null;
  return {
    handle,
    db,
    worker,
    yoga,
    async listen(port, host) {
      server = createServer(createServerAdapter(handle));
      // graphql-ws subscriptions on /graphql, through the same yoga pipeline and API keys.
      websocket = attachGraphQLWebSocket(server, { yoga, prisma, limiter, limits: { live: config.rateLimitLive, test: config.rateLimitTest }, hostEnvironment });
      await new Promise<void>((resolve) => server!.listen(port, host, resolve));
      return server;
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      await websocket?.close();
      await worker?.stop();
      await relay.stop();
      await events.close();
      if (server) await new Promise<void>((resolve) => { server!.closeAllConnections?.(); server!.close(() => resolve()); });
      redis?.disconnect();
    },
  };
}

/** Read the body, refusing more than `limit` bytes with 413 `payload_too_large`. */
async function readBody(request: Request, limit: number): Promise<string> {
  const tooLarge = () => new DomainError('invalid_request', 'payload_too_large', `The request body exceeds ${limit} bytes.`, { status: 413 });
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw tooLarge();
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
