import { GraphQLError, type ExecutionResult } from 'graphql';
import { createYoga, isAsyncIterable, type YogaServerInstance } from 'graphql-yoga';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { TenantDbFactory } from '../db/tenant-db.ts';
import { ownerLookup } from '../db/owner-lookup.ts';
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
import type { EdgePlugin, ServerContext } from './edge/context.ts';
import { useArmor } from './edge/use-armor.ts';
import { useAudit } from './edge/use-audit.ts';
import { useBody } from './edge/use-body.ts';
import { answersHealth, useHealth, type HealthChecks } from './edge/use-health.ts';
import { STRIPE_EVENTS_PATH, useProcessorEvents } from './edge/use-processor-events.ts';
import { isFileLink, useFileTransfer } from './edge/use-file-transfer.ts';
import { nodeRestPath } from './node-rest.ts';
import { useInvitationAcceptance } from './edge/use-invitation-acceptance.ts';
import { useOpsScreen, useOpsSession } from './edge/use-ops-screen.ts';
import { forgetCachedPrincipals } from '../platform/api-keys.ts';
import { fileAccess, type FileLinkSigner } from '../domain/files/file-links.ts';
import type { FileStorage } from '../domain/files/file-storage.ts';
import { signingLinks, type SigningLinkSigner } from '../domain/agreements/agreement-links.ts';
import { useAgreementSigning } from './edge/use-agreement-signing.ts';
import type { ProcessorEventReader } from '../processors/stripe-webhook.ts';
import type { DnsResolver } from '../domain/domains/dns-resolver.ts';
import type { MessageChannels } from '../domain/messages/message-channels.ts';
import { useRequestFrame } from './edge/use-request-frame.ts';
import { useObservation } from './edge/use-observation.ts';
import type { Metrics } from '../metrics.ts';
import { useIdempotency } from './edge/use-idempotency.ts';
import { answersApiReference, useApiReference } from './edge/use-api-reference.ts';
import { answersOpenApi, useOpenApiDocument } from './edge/use-openapi.ts';
import { useOperationAccess } from './edge/use-operation-access.ts';
import { usePrincipal } from './edge/use-principal.ts';
import { useRateLimit } from './edge/use-rate-limit.ts';
import { useRestExecution } from './edge/use-rest.ts';
import { useRouting } from './edge/use-routing.ts';
import { useSafeInput } from './edge/use-safe-input.ts';
import { classifyGraphQLError, errorExtensions, internalError, toGraphQLError } from './error-envelope.ts';
import type { RateLimiter } from './rate-limit.ts';
import { currentRequestId } from './request-scope.ts';
import { log } from '../log.ts';

export const GRAPHQL_PATH = '/graphql';

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
  limits: { live: number; test: number };
  bodyLimitBytes: number;
  /** The environment a host name serves, when the operator split them (else null). */
  hostEnvironment(hostname: string): 'live' | 'test' | null;
  health: HealthChecks;
  /** Files' bytes, and the key that signs links to them. */
  files: { storage: FileStorage; signer: FileLinkSigner; publicUrl: string | undefined };
  /** The key that signs the customers' agreement signing links. */
  signingLinkSigner: SigningLinkSigner;
  /** Reads a Stripe event off POST /v1/processor/stripe/webhook (null: no signing secret configured). */
  readStripeEvent: ProcessorEventReader | null;
  /** The REST route table (default: every /v1 route of the project). */
  routes?: RestRoute[];
  /** The metrics that count GraphQL subscriptions over SSE (src/http/observe.ts). */
  metrics?: Metrics;
}

export type Yoga = YogaServerInstance<ServerContext, GraphQLContext>;
export type NodeRestPath = ReturnType<typeof nodeRestPath>;

/** The scheme, host and port the caller reached (links the API hands out point back there). */
const originOf = (request: { readonly url: string } | undefined) => (request ? new URL(request.url).origin : '');

/**
 * The context every operation runs in, over GraphQL and REST alike: the caller's
 * tenant-scoped database, who calls, the clock, the processor, file links.
 */
export function operationContext(deps: EdgeDeps, edge: ServerContext, principal: Principal, request: { readonly url: string } | undefined): GraphQLContext {
  const tenant = { businessId: principal.businessId, livemode: principal.livemode };
  return {
    domain: { db: deps.tenantDb(tenant), tenant, principal, requestId: edge.requestId, idempotencyKey: edge.idempotencyKey, config: deps.config,
      processor: principal.livemode ? deps.processors.live : deps.processors.test,
      messaging: principal.livemode ? deps.messaging.live : deps.messaging.test,
      dns: deps.dns,
      now: principal.clockOffsetMs ? () => new Date(deps.now().getTime() + principal.clockOffsetMs) : deps.now,
      onClockChanged: forgetCachedPrincipals,
      onAccessChanged: forgetCachedPrincipals,
      publicUrl: () => deps.files.publicUrl ?? originOf(request),
      files: fileAccess(deps.files.storage, deps.files.signer, () => deps.files.publicUrl ?? originOf(request), tenant),
      signingLinks: signingLinks(deps.signingLinkSigner, () => deps.files.publicUrl ?? originOf(request)),
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

/** The domain context of a GraphQL operation. */
function useDomainContext(deps: EdgeDeps): EdgePlugin {
  return {
    onContextBuilding({ context, extendContext }) {
      const edge = context as unknown as ServerContext;
      if (!edge.principal) return; // the GraphiQL page: no operation runs without a key
      extendContext(operationContext(deps, edge, edge.principal, context.request) as never);
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

function useContractErrorExtensions(): EdgePlugin {
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
  log.error({ request_id: requestId, err: original }, 'operation failed');
  return toGraphQLError(internalError(), requestId);
}

/**
 * The one pipeline of the service: REST, GraphQL over HTTP and (src/http/websocket.ts) the
 * WebSocket all pass through these plugins, in this order, so authentication, the key's
 * environment, rate limits, access, idempotency and audit are written once.
 */
export function createGraphQLServer(deps: EdgeDeps): { yoga: Yoga; openapi: () => string; nodeRest: NodeRestPath } {
  const compiled = compileRoutes(schema, deps.routes ?? defaultRoutes);
  const lookup = routeLookup(compiled, (edge, request) => operationContext(deps, edge, edge.principal!, request));
  const principal = { prisma: deps.prisma, hostEnvironment: deps.hostEnvironment };
  const rateLimit = { limiter: deps.limiter, limits: deps.limits };
  const owners = ownerLookup(deps.prisma);
  let openapi: string | null = null;
  const document = () => (openapi ??= JSON.stringify(openApiDocument(compiled)));
  const plugins: EdgePlugin[] = [
    useRequestFrame(),
    useObservation(deps.metrics),
    useHealth(deps.health),
    useFileTransfer({ owners, tenantDb: deps.tenantDb, storage: deps.files.storage, signer: deps.files.signer, now: deps.now }),
    useAgreementSigning({ owners, tenantDb: deps.tenantDb, signer: deps.signingLinkSigner, files: deps.files, bodyLimitBytes: deps.bodyLimitBytes, now: deps.now }),
    useInvitationAcceptance({ prisma: deps.prisma, owners, tenantDb: deps.tenantDb, bodyLimitBytes: deps.bodyLimitBytes, now: deps.now, publicUrl: deps.files.publicUrl }),
    useOpsScreen({ prisma: deps.prisma, now: deps.now, bodyLimitBytes: deps.bodyLimitBytes, publicUrl: deps.files.publicUrl, hostEnvironment: deps.hostEnvironment }),
    useProcessorEvents({ owners, tenantDb: deps.tenantDb, bodyLimitBytes: deps.bodyLimitBytes, readStripeEvent: deps.readStripeEvent, processors: deps.processors }),
    useOpenApiDocument(document),
    useApiReference(),
    useRouting(lookup, GRAPHQL_PATH),
    useBody(deps.bodyLimitBytes),
    useOpsSession(principal),
    usePrincipal(principal),
    useRateLimit(rateLimit),
    useOperationAccess(),
    useIdempotency(deps.tenantDb),
    useAudit(deps.tenantDb),
    useRestExecution(),
    useDomainContext(deps),
    useSafeInput(),
    ...useArmor(),
    useContractErrorExtensions(),
  ];
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
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
    // string included), before authentication. Health is ours (use-health.ts): no parsed URL
    // ends with a NUL, so it never answers.
    healthCheckEndpoint: '\u0000',
    plugins: plugins as never,
    maskedErrors: { maskError: (error) => maskError(error, currentRequestId()) },
  });
  // GET requests of JSON routes skip the Fetch-API adaptation, through the same steps (src/http/node-rest.ts).
  const nodeRest = nodeRestPath({ lookup, answeredBeforeRouting: (method, pathname) => answersHealth(method, pathname) || isFileLink(pathname) || pathname === STRIPE_EVENTS_PATH || answersOpenApi(method, pathname) || answersApiReference(method, pathname), principal, rateLimit });
  return { yoga, openapi: document, nodeRest };
}
