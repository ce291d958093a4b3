import { z } from 'zod';
import { authorize, authorizeSandbox } from '../access/permissions.ts';
import { EVENT_TYPES, isEventType } from '../events/event-types.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { resourceMissing, validationError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { pageQuery, toPage, type PageParams } from '../shared/pagination.ts';
import { mergeMetadata, metadata, newMetadata, parseInput } from '../shared/validation.ts';
import { newEndpointSecret } from './signing.ts';

const url = z.string().max(2048).url().refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL');
const enabledEvents = z
  .array(z.string())
  .min(1)
  .max(100)
  .refine((types) => types.every((t) => t === '*' || isEventType(t)), `each must be "*" or one of: ${EVENT_TYPES.join(', ')}`);

const createInput = z.object({
  url,
  enabledEvents,
  description: z.string().max(500).nullish(),
  enabled: z.boolean().default(true),
  metadata: newMetadata,
});

const updateInput = z.object({
  url: url.nullish(),
  enabledEvents: enabledEvents.nullish(),
  description: z.string().max(500).nullish(),
  enabled: z.boolean().nullish(),
  metadata: metadata.nullish(),
});

/** Live endpoints receive real customer data: only over TLS. */
function assertTransport(ctx: DomainContext, endpointUrl: string) {
  if (ctx.principal.livemode && !endpointUrl.toLowerCase().startsWith('https://')) {
    throw validationError('url', 'Invalid url: live webhook endpoints must use https.');
  }
}

/** POST /v1/developers/webhooks: the answer alone carries the signing secret. */
export async function createWebhookEndpoint(ctx: DomainContext, raw: unknown) {
  authorize(ctx.principal, 'webhooks:write');
  const input = parseInput(createInput, raw);
  assertTransport(ctx, input.url);
  const endpoint = await ctx.prisma.webhookEndpoint.create({
    data: { id: newId('webhookEndpoint'), ...scope(ctx), ...input, description: input.description ?? null, secret: newEndpointSecret() },
  });
  return { ...endpoint, revealSecret: true };
}

export async function getWebhookEndpoint(ctx: DomainContext, id: string) {
  authorize(ctx.principal, 'webhooks:read');
  const endpoint = await ctx.prisma.webhookEndpoint.findFirst({ where: { id, ...scope(ctx) } });
  if (!endpoint) throw resourceMissing('webhook endpoint', id);
  return endpoint;
}

export async function listWebhookEndpoints(ctx: DomainContext, params: PageParams) {
  authorize(ctx.principal, 'webhooks:read');
  const page = pageQuery(params);
  const rows = await ctx.prisma.webhookEndpoint.findMany({ where: { ...scope(ctx), ...page.where }, orderBy: page.orderBy, take: page.take });
  return toPage(rows, page);
}

export async function updateWebhookEndpoint(ctx: DomainContext, id: string, raw: unknown) {
  authorize(ctx.principal, 'webhooks:write');
  const input = parseInput(updateInput, raw ?? {});
  const current = await getWebhookEndpoint(ctx, id);
  if (input.url) assertTransport(ctx, input.url);
  return ctx.prisma.webhookEndpoint.update({
    where: { id: current.id },
    data: {
      ...(input.url ? { url: input.url } : {}),
      ...(input.enabledEvents ? { enabledEvents: input.enabledEvents } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.enabled !== undefined && input.enabled !== null ? { enabled: input.enabled } : {}),
      ...(input.metadata ? { metadata: mergeMetadata(current.metadata as Record<string, string>, input.metadata) } : {}),
    },
  });
}

/** GET /v1/developers/webhooks/{id}/deliveries: every attempt, newest first. */
export async function listDeliveries(ctx: DomainContext, endpointId: string, params: PageParams & { eventId?: string | null }) {
  authorize(ctx.principal, 'webhooks:read');
  await getWebhookEndpoint(ctx, endpointId);
  const page = pageQuery(params);
  const rows = await ctx.prisma.webhookDelivery.findMany({
    where: { endpointId, ...scope(ctx), ...(params.eventId ? { eventId: params.eventId } : {}), ...page.where },
    orderBy: page.orderBy,
    take: page.take,
  });
  return toPage(rows, page);
}

/**
 * Resend by hand: the event of a delivery attempt is queued again for its endpoint, due now,
 * whatever happened before (delivered, given up, or waiting for a retry).
 */
export async function retryDelivery(ctx: DomainContext, endpointId: string, deliveryId: string) {
  authorize(ctx.principal, 'webhooks:write');
  const delivery = await ctx.prisma.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId, ...scope(ctx) } });
  if (!delivery) throw resourceMissing('webhook delivery', deliveryId);
  return ctx.prisma.webhookMessage.update({ where: { id: delivery.messageId }, data: { state: 'pending', nextAttemptAt: ctx.now() } });
}

const testSendInput = z.object({ type: z.string().refine((t) => isEventType(t), 'unknown event type').default('rental.started') });

/** POST /v1/test/webhooks/{id}/send: a test event delivered to this endpoint only, logged like any other. */
export async function sendTestWebhook(ctx: DomainContext, endpointId: string, raw: unknown) {
  authorizeSandbox(ctx.principal);
  const input = parseInput(testSendInput, raw ?? {});
  const endpoint = await getWebhookEndpoint(ctx, endpointId);
  return ctx.prisma.$transaction((tx) =>
    recordEvent(tx, originOf(ctx), {
      type: input.type,
      onlyEndpointId: endpoint.id,
      object: { object: 'test_webhook', id: newId('event').replace(/^evt_/, 'test_'), endpoint_id: endpoint.id, test: true, livemode: false },
    }),
  );
}
