import { GraphQLError, type ExecutionResult } from 'graphql';
import { createYoga, isAsyncIterable, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { OAuthServer } from '../oauth/provider.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { TenantDbFactory } from '../db/tenant-db.ts';
import type { GraphQLContext } from '../builder.ts';
import type { DomainConfig } from '../domain/shared/context.ts';
import type { Principal } from '../domain/access/permissions.ts';
import type { PaymentProcessor } from '../domain/payments/processor.ts';
import type { IdentityProvider } from '../domain/identity/identity-provider.ts';
import { DomainError } from '../domain/shared/errors.ts';
import { schema } from '../schema/index.ts';
import type { EventPubSub } from '../events/event-relay.ts';
import { compileRoutes, routeLookup } from '../../rest-adapter/adapter.ts';
import { openApiDocument } from '../../rest-adapter/openapi.ts';
import type { RestRoute } from '../../rest-adapter/route.ts';
import { routes as defaultRoutes } from '../../rest-adapter/routes/index.ts';
import type { EdgeContext, EdgeStep } from './edge/runner.ts';
import { edgeSteps, GRAPHQL_PATH } from './edge/steps.ts';
import type { HealthChecks } from './edge/steps/health.ts';
import { useArmor } from './graphql-armor.ts';
import { forgetCachedPrincipals } from '../platform/api-keys.ts';
import { fileAccess, type FileLinkSigner } from '../domain/files/file-links.ts';
import type { FileStorage } from '../domain/files/file-storage.ts';
import { signingLinks, type SigningLinkSigner } from '../domain/agreements/agreement-links.ts';
import { browserBookingLinks, type BrowserBookingSecrets } from '../domain/bookings/browser-booking.ts';
import type { ProcessorEventReader } from '../processors/stripe-webhook.ts';
import type { DnsResolver } from '../domain/domains/dns-resolver.ts';
import type { MessageChannels } from '../domain/messages/message-channels.ts';
import type { Metrics } from '../metrics.ts';
import { useEdge, type YogaServerContext } from './transports/yoga.ts';
import { classifyGraphQLError, databaseFault, errorExtensions, internalError, toGraphQLError } from './error-envelope.ts';
import type { TrustProxy } from './client-address.ts';
import type { RateLimiter } from './rate-limit.ts';
import { currentRequestId } from './request-scope.ts';
import { log } from '../log.ts';

export { GRAPHQL_PATH };


/** What GraphiQL opens with: the newest bookings and what hangs off them. */
const GRAPHIQL_DEFAULT_QUERY = `# Put your test secret key in the Headers pane below, then run this.
query NewestBookings {
  bookings(first: 5) {
    edges {
      node { id state startAt endAt totalCents vehicle { name } customer { name } }
    }
  }
}
`;

export interface EdgeDeps {
  prisma: PrismaClient;
  tenantDb: TenantDbFactory;
  config: DomainConfig;
  /** The payment processor of each environment. */
  processors: { test: PaymentProcessor; live: PaymentProcessor };
  /** The channels that deliver messages (email, SMS) in each environment. */
  messaging: { test: MessageChannels; live: MessageChannels };
  /** The identity provider of each environment. */
  identityProviders: { test: IdentityProvider; live: IdentityProvider };
  /** DNS, for custom domains' verification. */
  dns: DnsResolver;
  pubsub: EventPubSub;
  now: () => Date;
  limiter: RateLimiter;
  limits: { live: number; test: number; invitationAccept: number; browserBooking: number };
  bodyLimitBytes: number;
  /** How long an Idempotency-Key's claim outlives a process that died holding it (IDEMPOTENCY_LEASE_MS). */
  idempotencyLeaseMs?: number;
  /** The environment a host name serves, when the operator split them (else null). */
  hostEnvironment(hostname: string): 'live' | 'test' | null;
  health: HealthChecks;
  /** Files' bytes, and the key that signs links to them. */
  files: { storage: FileStorage; signer: FileLinkSigner; publicUrl: string | undefined };
  /** The key that signs the customers' agreement signing links. */
  signingLinkSigner: SigningLinkSigner;
  /** The key of bookings' client secrets and of the hosted payment pages' links. */
  browserBookingSecrets: BrowserBookingSecrets;
  /** Stripe's publishable key, for Stripe.js on the live payment steps: the hosted payment page and the embedded components (STRIPE_PUBLISHABLE_KEY). */
  stripePublishableKey?: string;
  /** Where Stripe.js is loaded from (STRIPE_JS_URL; default js.stripe.com's v3). */
  stripeJsUrl?: string;
  /** Reads a Stripe event off POST /v1/processor/stripe/webhook (null: no signing secret configured). */
  readStripeEvent: ProcessorEventReader | null;
  /** The REST route table (default: every /v1 route of the project). */
  routes?: RestRoute[];
  /** The service's metrics: served at GET /metrics, and counting GraphQL subscriptions over SSE. */
  metrics?: Metrics;
  /** The bearer token GET /metrics requires (none: loopback callers only). */
  metricsToken?: string;
  /** The proxies whose X-Forwarded-For names the client (TRUST_PROXY; default none). */
  trustProxy?: TrustProxy;
  /** The authorization server of OAuth apps (its consent page is an edge step; its tokens are callers). */
  oauth?: OAuthServer;
  /** The edge's steps, changed before use (an operator's own step; a test's probe). */
  adjustEdge?: (steps: EdgeStep[]) => EdgeStep[];
}

export type Yoga = YogaServerInstance<YogaServerContext, GraphQLContext>;

/**
 * The context every operation runs in, over GraphQL and REST alike: the caller's
 * tenant-scoped database, who calls, the clock, the processor, file links.
 */
export function operationContext(deps: EdgeDeps, edge: EdgeContext, principal: Principal): GraphQLContext {
  const request = edge.request;
  const tenant = { businessId: principal.businessId, livemode: principal.livemode };
  // Links point back to the scheme, host and port the caller reached, unless PUBLIC_URL says otherwise.
  const publicUrl = () => deps.files.publicUrl ?? request.origin;
  return {
    domain: { db: deps.tenantDb(tenant), tenant, principal, requestId: edge.requestId, idempotencyKey: edge.idempotencyKey, idempotent: edge.idempotent ?? null, config: deps.config,
      processor: principal.livemode ? deps.processors.live : deps.processors.test,
      messaging: principal.livemode ? deps.messaging.live : deps.messaging.test,
      dns: deps.dns,
      now: principal.clockOffsetMs ? () => new Date(deps.now().getTime() + principal.clockOffsetMs) : deps.now,
      onClockChanged: forgetCachedPrincipals,
      onAccessChanged: forgetCachedPrincipals,
      publicUrl,
      files: fileAccess(deps.files.storage, deps.files.signer, publicUrl, tenant),
      signingLinks: signingLinks(deps.signingLinkSigner, publicUrl),
      browserBooking: browserBookingLinks(deps.browserBookingSecrets, tenant, publicUrl),
      identity: principal.livemode ? deps.identityProviders.live : deps.identityProviders.test },
    pubsub: deps.pubsub,
  };
}

/**
 * GraphiQL's page with its code bundled in, loaded the first time the page is asked for: the
 * bundle is some 30 MB of strings in memory, which a process that never shows it does not keep.
 */
const renderBundledGraphiQL = ((options: Parameters<typeof import('@graphql-yoga/render-graphiql').renderGraphiQL>[0]) =>
  import('@graphql-yoga/render-graphiql').then((m) => m.renderGraphiQL(options))) as unknown as (options: object) => string;

type YogaPlugin = Plugin<Record<string, unknown>, YogaServerContext>;

/** The domain context of a GraphQL operation, from its edge context (the steps admitted its caller). */
function useDomainContext(deps: EdgeDeps): YogaPlugin {
  return {
    onContextBuilding({ context, extendContext }) {
      const edge = (context as Partial<YogaServerContext>).frame?.edge;
      if (!edge?.principal) return; // the GraphiQL page: no operation runs without a key
      extendContext(operationContext(deps, edge, edge.principal) as never);
    },
  };
}

/** GraphQL subscriptions over SSE, counted while open (graphql-ws counts its own, src/http/websocket.ts). */
function useSseSubscriptionCount(metrics: Metrics | undefined): YogaPlugin {
  return {
    onSubscribe({ args }) {
      const edge = (args.contextValue as Partial<YogaServerContext>).frame?.edge;
      if (!metrics || edge?.transport !== 'http') return;
      return {
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) return;
          return { onEnd: metrics.subscriptionOpened('sse') };
        },
      };
    },
  };
}

/**
 * GraphQL's own errors (syntax, validation, a variable its type rejects, a limit) with the
 * contract's type and code, and every error with the request id. Domain errors already carry
 * theirs (maskError). Returns copies: yoga caches the errors of parsing and validation per
 * document, and each answer must name its own request.
 */
export function withContractExtensions(errors: readonly GraphQLError[], requestId = currentRequestId(), options: { dropHttp?: boolean } = {}): GraphQLError[] {
  return errors.map((error) => {
    const { http, ...rest } = error.extensions as Record<string, unknown>;
    let ext: Record<string, unknown> = options.dropHttp || http === undefined ? rest : { ...rest, http };
    if (!ext.type) ext = { ...ext, ...errorExtensions(classifyGraphQLError(error), requestId) };
    ext.request_id ??= requestId;
    return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError, extensions: ext });
  });
}

function useContractErrorExtensions(): YogaPlugin {
  const fix = (r: ExecutionResult) => (r && typeof r === 'object' && r.errors?.length ? { ...r, errors: withContractExtensions(r.errors) } : r);
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map(fix));
      else if (!isAsyncIterable(result)) setResult(fix(result as ExecutionResult));
    },
  };
}

/**
 * An error of an operation as the caller sees it: a domain error keeps its contract shape;
 * GraphQL's own (a variable its type rejects) are the caller's and pass, given their type and
 * code by withContractExtensions; anything else is logged once and becomes internal_error.
 */
export function maskError(error: unknown, requestId: string): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (original instanceof DomainError) {
    const gql = error as GraphQLError;
    return toGraphQLError(original, requestId, { nodes: gql.nodes, path: gql.path });
  }
  if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) return error;
  const fault = databaseFault(original, requestId);
  if (fault) {
    const gql = error as GraphQLError;
    return toGraphQLError(fault, requestId, { nodes: gql.nodes, path: gql.path });
  }
  log.error({ request_id: requestId, err: original }, 'operation failed');
  return toGraphQLError(internalError(), requestId);
}

/**
 * The service's GraphQL server and its edge: the REST routes compiled against the schema, the
 * edge's steps (src/http/edge/steps.ts) that every transport runs, and yoga, which runs them
 * for GraphQL over HTTP and SSE (and for any Fetch API request) before it executes.
 */
export function createGraphQLServer(deps: EdgeDeps): { yoga: Yoga; openapi: () => string; steps: readonly EdgeStep[] } {
  const compiled = compileRoutes(schema, deps.routes ?? defaultRoutes);
  const lookup = routeLookup(compiled, (edge) => operationContext(deps, edge, edge.principal!));
  let openapi: string | null = null;
  const document = () => (openapi ??= JSON.stringify(openApiDocument(compiled)));
  const listed = edgeSteps(deps, { schema, lookup, openapi: document });
  const steps: readonly EdgeStep[] = deps.adjustEdge ? deps.adjustEdge(listed) : listed;
  const yoga = createYoga<YogaServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    // CORS is the edge's (src/http/edge/steps/cors.ts), for every transport.
    cors: false,
    // GraphiQL with its code bundled in (no CDN: it works offline). Operations need a key:
    // the headers pane starts with the Authorization header to fill in; it is not persisted.
    renderGraphiQL: renderBundledGraphiQL,
    graphiql: {
      title: 'Rental API · GraphiQL',
      headers: JSON.stringify({ Authorization: 'Bearer svc_test_sk_...' }, null, 2),
      shouldPersistHeaders: false,
      defaultQuery: GRAPHIQL_DEFAULT_QUERY,
    },
    logging: false,
    // yoga's own health check answers any URL that merely ends with its endpoint (a query
    // string included), before authentication. Health is the edge's: no parsed URL ends with
    // a NUL, so it never answers.
    healthCheckEndpoint: '\u0000',
    plugins: [useEdge(steps), useDomainContext(deps), useSseSubscriptionCount(deps.metrics), ...useArmor(), useContractErrorExtensions()] as never,
    maskedErrors: { maskError: (error) => maskError(error, currentRequestId()) },
  });
  return { yoga, openapi: document, steps };
}
