import type { GraphQLSchema } from 'graphql';
import type { EdgeDeps } from '../graphql-server.ts';
import { ownerLookup } from '../../db/owner-lookup.ts';
import { GRAPHQL_PATH, type EdgeStep } from './runner.ts';
import { agreementSigningStep } from './steps/agreement-signing.ts';
import { apiReferenceStep } from './steps/api-reference.ts';
import { auditStep } from './steps/audit.ts';
import { bodyStep } from './steps/body.ts';
import { browserOriginStep, browserOrigins } from './steps/browser-origin.ts';
import { browserRateLimitStep } from './steps/browser-rate-limit.ts';
import { browserSelectionStep } from './steps/browser-selection.ts';
import { checkoutPageStep } from './steps/checkout-page.ts';
import { clientStep } from './steps/client.ts';
import { corsStep } from './steps/cors.ts';
import { embedScriptStep, embedThemeStep } from './steps/embed.ts';
import { fileLinksStep } from './steps/file-links.ts';
import { graphqlDocumentStep } from './steps/graphql-document.ts';
import { graphqlParamsStep } from './steps/graphql-params.ts';
import { healthStep } from './steps/health.ts';
import { idempotencyStep } from './steps/idempotency.ts';
import { inputStep } from './steps/input.ts';
import { invitationAcceptanceStep } from './steps/invitation-acceptance.ts';
import { metricsStep } from './steps/metrics.ts';
import { openApiStep } from './steps/openapi.ts';
import { operationAccessStep } from './steps/operation-access.ts';
import { oauthConsentStep } from './steps/oauth-consent.ts';
import { opsScreenStep, opsSessionStep } from './steps/ops-screen.ts';
import { principalStep } from './steps/principal.ts';
import { processorEventsStep } from './steps/processor-events.ts';
import { rateLimitStep } from './steps/rate-limit.ts';
import { restStep } from './steps/rest.ts';
import { routingStep, type RouteLookup } from './steps/routing.ts';

export { GRAPHQL_PATH };

/**
 * The edge of the service: every request passes these steps, in this order, whatever brought
 * it (src/http/edge/runner.ts). First who the client is (its address, behind a trusted
 * proxy the forwarded one), then the answers that need no key (health, metrics, the
 * OpenAPI document and reference, the signed links, the ops screen, OAuth apps' consent page, the processor's events);
 * then routing, the body, the caller (an ops session's cookie, or a key), its rate, the
 * idempotency key, the GraphQL operation, its access and input; last, a REST route runs.
 */
export function edgeSteps(deps: EdgeDeps, parts: { schema: GraphQLSchema; lookup: RouteLookup; openapi: () => string }): EdgeStep[] {
  const principal = { prisma: deps.prisma, hostEnvironment: deps.hostEnvironment, browserBookingSecrets: deps.browserBookingSecrets, oauth: deps.oauth };
  const owners = ownerLookup(deps.prisma);
  return [
    clientStep(deps.trustProxy ?? { kind: 'none' }),
    embedScriptStep(),
    corsStep(),
    healthStep(deps.health),
    ...(deps.metrics ? [metricsStep(deps.metrics, deps.metricsToken)] : []),
    openApiStep(parts.openapi),
    apiReferenceStep(),
    fileLinksStep({ owners, tenantDb: deps.tenantDb, storage: deps.files.storage, signer: deps.files.signer, now: deps.now }),
    agreementSigningStep({ owners, tenantDb: deps.tenantDb, signer: deps.signingLinkSigner, files: deps.files, bodyLimitBytes: deps.bodyLimitBytes, now: deps.now }),
    invitationAcceptanceStep({
      prisma: deps.prisma, owners, tenantDb: deps.tenantDb, bodyLimitBytes: deps.bodyLimitBytes, now: deps.now, publicUrl: deps.files.publicUrl,
      limiter: deps.limiter, limit: deps.limits.invitationAccept,
    }),
    opsScreenStep({ prisma: deps.prisma, now: deps.now, bodyLimitBytes: deps.bodyLimitBytes, publicUrl: deps.files.publicUrl, hostEnvironment: deps.hostEnvironment }),
    checkoutPageStep({ owners, tenantDb: deps.tenantDb, secrets: deps.browserBookingSecrets, bodyLimitBytes: deps.bodyLimitBytes, now: deps.now, stripePublishableKey: deps.stripePublishableKey, stripeJsUrl: deps.stripeJsUrl }),
    ...(deps.oauth ? [oauthConsentStep({ prisma: deps.prisma, tenantDb: deps.tenantDb, oauth: deps.oauth, now: deps.now, bodyLimitBytes: deps.bodyLimitBytes })] : []),
    processorEventsStep({ owners, tenantDb: deps.tenantDb, bodyLimitBytes: deps.bodyLimitBytes, readStripeEvent: deps.readStripeEvent, processors: deps.processors }),
    routingStep(parts.lookup, GRAPHQL_PATH),
    auditStep(deps.tenantDb),
    bodyStep(deps.bodyLimitBytes),
    opsSessionStep(principal),
    principalStep(principal),
    browserOriginStep(browserOrigins(deps.tenantDb)),
    rateLimitStep({ limiter: deps.limiter, limits: deps.limits }),
    embedThemeStep(deps.tenantDb, { publishableKey: deps.stripePublishableKey, jsUrl: deps.stripeJsUrl }),
    graphqlParamsStep(),
    idempotencyStep(deps.tenantDb, deps.idempotencyLeaseMs, deps.browserBookingSecrets.idempotencyScope),
    graphqlDocumentStep(parts.schema),
    operationAccessStep(),
    browserSelectionStep(parts.schema),
    browserRateLimitStep({ limiter: deps.limiter, limit: deps.limits.browserBooking }),
    inputStep(),
    restStep(),
  ];
}
