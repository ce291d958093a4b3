import { Response } from '@whatwg-node/server';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Database } from './db/database.ts';
import { tenantDbFactory } from './db/tenant-db.ts';
import type { AppConfig } from './config.ts';
import { newId } from './domain/shared/ids.ts';
import type { EdgeStep } from './http/edge/runner.ts';
import { healthChecks } from './http/health-checks.ts';
import { asDomainError, errorAnswer } from './http/error-envelope.ts';
import { createGraphQLServer, GRAPHQL_PATH, type EdgeDeps, type Yoga } from './http/graphql-server.ts';
import { answerClientError, nodeListener } from './http/transports/node.ts';
import type { RequestFrame, YogaServerContext } from './http/transports/yoga.ts';
import { configuredProcessors, reportingProcessors } from './processors/configured.ts';
import { reportingIdentityFailures, sandboxIdentityProvider, unconfiguredIdentityProvider } from './processors/identity-providers.ts';
import { directoryStorage } from './storage/directory-storage.ts';
import { reportingStorageFailures } from './storage/reported-failures.ts';
import { fileLinkSigner } from './domain/files/file-links.ts';
import { signingLinkSigner } from './domain/agreements/agreement-links.ts';
import { browserBookingSecrets } from './domain/bookings/browser-booking.ts';
import { platformSecret } from './platform/secrets.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { AuditTrail, requestScope } from './http/request-scope.ts';
import { attachGraphQLWebSocket } from './http/websocket.ts';
import { createEventPubSub, startEventRelay } from './events/event-relay.ts';
import { startMaintenance } from './jobs/maintenance.ts';
import { configuredChannels } from './messaging/channels.ts';
import { systemResolver } from './dns/system-resolver.ts';
import { startDeliveryWorker, workerOptions, type DeliveryWorker } from './webhooks/delivery-worker.ts';
import type { RestRoute } from '../rest-adapter/route.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { requestObserver } from './http/observe.ts';
import { webhookQueueDepth } from './webhooks/queue-depth.ts';
import { createOAuthServer, isOAuthPath } from './oauth/provider.ts';
import { endConnection } from './oauth/connections.ts';
import { ownerLookup } from './db/owner-lookup.ts';

/** Test keys: the sandbox. Live keys: Stripe Identity when STRIPE_SECRET_KEY is set, else a clear 502. */
async function configuredIdentityProviders(config: AppConfig): Promise<EdgeDeps['identityProviders']> {
  const { secretKey, ...stripe } = config.stripe;
  if (!secretKey) return { test: sandboxIdentityProvider(), live: unconfiguredIdentityProvider() };
  const { stripeIdentityProvider } = await import('./processors/stripe-identity.ts');
  return { test: sandboxIdentityProvider(), live: stripeIdentityProvider({ secretKey, ...stripe }) };
}

const reportingIdentityProviders = (p: EdgeDeps['identityProviders']): EdgeDeps['identityProviders'] => ({ test: reportingIdentityFailures(p.test), live: reportingIdentityFailures(p.live) });

/** Files' bytes: an S3-compatible bucket when FILES_S3_BUCKET is set (the SDK is loaded only then), else FILES_DIR. */
async function configuredStorage(config: AppConfig) {
  if (!config.filesS3) return reportingStorageFailures(directoryStorage(config.filesDir));
  const { s3Storage } = await import('./storage/s3-storage.ts');
  return reportingStorageFailures(s3Storage(config.filesS3));
}

async function configuredEventReader(config: AppConfig) {
  if (!config.stripe.webhookSecret) return null;
  const { stripeEventReader } = await import('./processors/stripe-webhook.ts');
  return stripeEventReader(config.stripe.webhookSecret);
}

export interface App {
  /** The channels that deliver messages in each environment (the sandbox's record what they would send). */
  messaging: EdgeDeps['messaging'];
  /** The whole API as a fetch handler: REST /v1, GraphQL /graphql, health. */
  handle(request: Request): Promise<Response>;
  /** The in-process webhook delivery worker, when enabled. */
  worker: DeliveryWorker | null;
  /** The Prometheus metrics this process serves at GET /metrics. */
  metrics: Metrics;
  yoga: Yoga;
  /** Listen on `port`; rejects with `PortInUseError` when another process holds it. */
  listen(port: number, host: string): Promise<Server>;
  /**
   * Stop: accept nothing new, let requests in flight finish (at most `graceMs`), then close
   * the WebSockets, give back the webhook claims not yet sent, and stop the background work.
   */
  close(options?: { graceMs?: number }): Promise<void>;
  db: Database;
}

/** Another process listens on the port already. */
export class PortInUseError extends Error {
  override name = 'PortInUseError';
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} on ${host} is already in use; stop the other process or set PORT`);
  }
}

const DEFAULT_GRACE_MS = 10_000;

/** Build the service over an open database. `npm start` and the tests both use this. */
export async function buildApp(options: {
  db: Database;
  config: AppConfig;
  now?: () => Date;
  routes?: RestRoute[];
  processors?: EdgeDeps['processors'];
  identityProviders?: EdgeDeps['identityProviders'];
  /** Change the edge's steps (src/http/edge/steps.ts) before use: every transport runs the result. */
  adjustEdge?: (steps: EdgeStep[]) => EdgeStep[];
}): Promise<App> {
  const { db, config } = options;
  const messaging = configuredChannels(config.messaging);
  const now = options.now ?? (() => new Date());
  const prisma = db.prisma;
  // Rows an operation touches are reported to its audit trail (the request scope).
  const tenantDb = tenantDbFactory(prisma, {
    wants: () => requestScope.getStore()?.audit.write === true,
    touch: (model, row) => requestScope.getStore()?.audit.touch(model, row),
  }, { direct: db.direct });
  const events = createEventPubSub(config.redisUrl);
  // The queue depth is read when scraped, through the platform's own (not a tenant's) access.
  const metrics = createMetrics({ queueDepth: () => webhookQueueDepth(prisma) });
  // Independent of each other, so started together: a restart waits for the slowest of these
  // round trips to the database, not for their sum.
  const [relay, worker, agreementLinks, fileLinks, browserBookings, configured, identityProviders, storage, readStripeEvent, oauthCookies] = await Promise.all([
    startEventRelay(db, events.pubsub),
    config.webhookWorker ? startDeliveryWorker(db, { ...workerOptions(config), onAttempt: metrics.delivery }) : null,
    platformSecret(prisma, 'agreement_links'),
    platformSecret(prisma, 'file_links'),
    platformSecret(prisma, 'browser_bookings'),
    options.processors ?? configuredProcessors(config),
    options.identityProviders ?? configuredIdentityProviders(config),
    configuredStorage(config),
    configuredEventReader(config),
    platformSecret(prisma, 'oauth_cookies'),
  ]);
  const oauthTenants = { owners: ownerLookup(prisma), tenantDb };
  const oauth = createOAuthServer({ prisma, tenants: oauthTenants, cookieKey: oauthCookies, publicUrl: config.publicUrl, onGrantRevoked: (grantId) => endConnection(oauthTenants, grantId) });
  const limiter = createRateLimiter(config.redisUrl);
  const hostEnvironment = (hostname: string): 'live' | 'test' | null =>
    config.sandboxHost && hostname === config.sandboxHost ? 'test' : config.productionHost && hostname === config.productionHost ? 'live' : null;

  const health = healthChecks(prisma, db.kind, config.redisUrl);

  // The sandbox simulator for test keys; live payments need a processor configured.
  const processors = reportingProcessors(configured);
  const { yoga, steps } = createGraphQLServer({
    prisma,
    tenantDb,
    config: { holdMinutes: config.holdMinutes, quoteTtlMinutes: config.quoteTtlMinutes, webhookPrivateUrls: config.webhookPrivateUrls, customDomainTarget: config.customDomainTarget },
    processors,
    messaging,
    signingLinkSigner: signingLinkSigner(agreementLinks),
    browserBookingSecrets: browserBookingSecrets(browserBookings),
    stripePublishableKey: config.stripe.publishableKey,
    stripeJsUrl: config.stripe.jsUrl,
    identityProviders: reportingIdentityProviders(identityProviders),
    files: { storage, signer: fileLinkSigner(fileLinks), publicUrl: config.publicUrl },
    dns: systemResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
    readStripeEvent,
    pubsub: events.pubsub,
    now,
    limiter,
    limits: { live: config.rateLimitLive, test: config.rateLimitTest, invitationAccept: config.invitationAcceptLimit, browserBooking: config.browserBookingLimit },
    bodyLimitBytes: config.bodyLimitBytes,
    idempotencyLeaseMs: config.idempotencyLeaseMs,
    hostEnvironment,
    health,
    routes: options.routes,
    metrics,
    metricsToken: config.metricsToken,
    trustProxy: config.trustProxy,
    adjustEdge: options.adjustEdge,
    oauth,
  });

  /** A request's id and audit trail, its scope for code far from the handler (error masking, the tenant scope's audit). */
  const frame = (): RequestFrame => ({ requestId: newId('request'), audit: new AuditTrail() });

  async function handle(request: Request): Promise<Response> {
    const f = frame();
    return requestScope.run(f, async () => {
      try {
        return await yoga.handleRequest(request, { frame: f });
      } catch (err) {
        // The client went away: there is no one to answer, and nothing went wrong on our side.
        if (request.signal.aborted) return new Response(null, { status: 499 });
        const answer = errorAnswer(asDomainError(err, f.requestId), f.requestId, new URL(request.url).pathname === GRAPHQL_PATH);
        return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, 'Request-Id': f.requestId } });
      }
    });
  }

  // requestListener takes the server context after req and res (its typing omits it).
  const pipeline = yoga.requestListener as unknown as (req: IncomingMessage, res: ServerResponse, context: YogaServerContext) => Promise<void>;
  const observe = requestObserver(metrics);
  /**
   * Node's requests: GraphQL into yoga (it executes them), every other request on the Node
   * server's own path (src/http/transports/node.ts); both run the edge's steps.
   */
  const listener = nodeListener(steps, { observe, graphql: (req, res, f) => void pipeline(req, res, { frame: f }), oauth: { takes: isOAuthPath, serve: oauth.serve } });

  const maintenance = startMaintenance({
    prisma,
    tenantDb,
    now,
    messaging,
    processors,
    processorSweepAfterMs: config.processorSweepAfterMs,
    holdSweepMs: config.holdSweepMs,
    idempotencySweepMs: config.holdSweepMs > 0 ? 600_000 : 0,
    retention: config.retention,
  });

  let server: Server | null = null;
  let websocket: { close(): Promise<void> } | null = null;
  let closing: Promise<void> | null = null;
  return {
    handle,
    db,
    messaging,
    worker,
    metrics,
    yoga,
    async listen(port, host) {
      const s = createServer(listener);
      // What Node's parser refuses (headers over 16 KiB, bytes that are not HTTP) answers in the envelope too.
      s.on('clientError', answerClientError);
      // Idle keep-alive connections outlive a load balancer's (commonly 60 s), so the server is
      // never the one to close a connection a client is about to reuse (an ECONNRESET for it).
      s.keepAliveTimeout = 65_000;
      s.headersTimeout = 66_000;
      await new Promise<void>((resolve, reject) => {
        s.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new PortInUseError(host, port) : err));
        s.listen(port, host, () => resolve());
      });
      // graphql-ws subscriptions on /graphql, through the same pipeline and API keys; attached
      // once listening, so a listen error is ours to report, not the WebSocket server's.
      websocket = attachGraphQLWebSocket(s, { yoga, steps, metrics });
      server = s;
      return s;
    },
    close(closeOptions = {}) {
      return (closing ??= (async () => {
        const grace = closeOptions.graceMs ?? DEFAULT_GRACE_MS;
        if (server) {
          const s = server;
          const drained = new Promise<void>((resolve) => s.close(() => resolve()));
          s.closeIdleConnections();
          const timer = setTimeout(() => s.closeAllConnections(), grace);
          await drained;
          clearTimeout(timer);
        }
        await websocket?.close();
        maintenance.stop();
        await worker?.stop();
        await relay.stop();
        await events.close();
        await limiter.close();
      })());
    },
  };
}
