import { z } from 'zod';
import type { WebhookEndpoint } from '../../generated/prisma/client.ts';
import type { DomainContext } from '../shared/context.ts';
import { resourceMissing } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { id, mergeMetadata, metadata, newMetadata } from '../shared/validation.ts';
import { newEndpointSecret } from './signing.ts';
import { assertDeliverable, enabledEvents, endpointUrl } from './webhook-endpoint-input.ts';
import { WebhookErrors } from './webhook.errors.ts';

const EXAMPLE_ID = 'we_01jd3m4k5n6p7q8r9s0t1v2w3x';

export const listWebhookEndpoints = defineOperation({
  name: 'webhookEndpoints',
  summary: 'List webhook endpoints',
  description: "The business's webhook endpoints in the key's environment, newest first: its own and its apps' (app_id tells them apart).",
  access: { permission: 'webhooks:read' },
  args: z.object({}),
  errors: [],
  async run(ctx, _args, { page }) {
    const p = pageQuery(page ?? {});
    return toPage(await ctx.db.webhookEndpoint.findMany({ where: p.where, orderBy: p.orderBy, take: p.take }), p);
  },
});

export const getWebhookEndpoint = defineOperation({
  name: 'webhookEndpoint',
  summary: 'Retrieve an endpoint',
  description: "A webhook endpoint of the business, its own or an app's (its secret is shown only when it is created).",
  access: { permission: 'webhooks:read' },
  args: z.object({ id: id('The endpoint (we_...).') }),
  errors: [],
  example: { id: EXAMPLE_ID },
  run: (ctx, args) => found(ctx.db.webhookEndpoint.findUnique({ where: { id: args.id } }), 'webhook endpoint', args.id),
});

/** What a new endpoint takes, a business's or an app's (POST /v1/developers/webhooks, POST /v1/apps/{id}/webhooks). */
export const createEndpointInput = z
  .object({
    url: endpointUrl,
    enabledEvents,
    description: z.string().max(500).nullish().meta({ description: 'A note for you (what the endpoint is for).' }),
    enabled: z.boolean().default(true).meta({ description: 'Whether events are delivered (true by default).' }),
    metadata: newMetadata,
  })
  .meta({ id: 'CreateWebhookEndpointInput' });

/** What an endpoint's update takes (only the fields sent change). */
export const updateEndpointInput = z
  .object({
    url: endpointUrl.nullish(),
    enabledEvents: enabledEvents.nullish(),
    description: z.string().max(500).nullish().meta({ description: 'A note for you (what the endpoint is for).' }),
    enabled: z.boolean().nullish().meta({ description: 'false pauses deliveries; true resumes them.' }),
    metadata: metadata.nullish(),
  })
  .meta({ id: 'UpdateWebhookEndpointInput' })
  .nullish();

/**
 * A new endpoint of the caller's business, its own or (with `appId`) one of its app's: the
 * URL deliverable (https in live mode, on the public internet), a new whsec_ secret shown in
 * this answer only.
 */
export async function createEndpoint(ctx: DomainContext, input: z.output<typeof createEndpointInput>, appId: string | null) {
  await assertDeliverable(ctx, input.url);
  const endpoint = await ctx.db.webhookEndpoint.create({
    data: { id: newId('webhookEndpoint'), ...ctx.tenant, ...input, description: input.description ?? null, secret: newEndpointSecret(), appId },
  });
  return { ...endpoint, revealSecret: true };
}

/** The fields sent, changed on an endpoint the caller found; a metadata key set to "" is removed. */
export async function updateEndpoint(ctx: DomainContext, current: WebhookEndpoint, input: NonNullable<z.output<typeof updateEndpointInput>>) {
  if (input.url) await assertDeliverable(ctx, input.url);
  return ctx.db.webhookEndpoint.update({
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

/** Delete an endpoint the caller found: nothing more is delivered to it, and its queued messages and delivery log go with it. */
export async function deleteEndpoint(ctx: DomainContext, current: WebhookEndpoint) {
  const { count } = await ctx.db.webhookEndpoint.deleteMany({ where: { id: current.id } });
  if (count !== 1) throw resourceMissing('webhook endpoint', current.id);
  return current;
}

export const createWebhookEndpoint = defineOperation({
  name: 'createWebhookEndpoint',
  summary: 'Create an endpoint',
  description: 'Registers a URL for signed event deliveries (Standard Webhooks). The answer alone carries the whsec_ signing secret: keep it.',
  access: { permission: 'webhooks:write' },
  args: z.object({ input: createEndpointInput }),
  errors: [WebhookErrors.urlNotAllowed],
  example: { input: { url: 'https://example.com/hooks/rentals', enabledEvents: ['booking.created', 'rental.started'], description: 'Order system' } },
  run: (ctx, { input }) => createEndpoint(ctx, input, null),
});

export const updateWebhookEndpoint = defineOperation({
  name: 'updateWebhookEndpoint',
  summary: 'Update endpoint configuration',
  description: "Changes only the fields sent; a metadata key set to \"\" is removed. Any endpoint of the business, an app's too.",
  access: { permission: 'webhooks:write' },
  args: z.object({ id: id('The endpoint (we_...).'), input: updateEndpointInput }),
  errors: [WebhookErrors.urlNotAllowed],
  example: { id: EXAMPLE_ID, input: { enabled: false } },
  async run(ctx, args) {
    const current = await found(ctx.db.webhookEndpoint.findUnique({ where: { id: args.id } }), 'webhook endpoint', args.id);
    return updateEndpoint(ctx, current, args.input ?? {});
  },
});

export const deleteWebhookEndpoint = defineOperation({
  name: 'deleteWebhookEndpoint',
  summary: 'Delete an endpoint',
  description: 'Deletes the endpoint (any of the business, an app\'s too): nothing more is delivered to it, and its queued deliveries and delivery log go with it. Answers the endpoint as it was.',
  access: { permission: 'webhooks:write' },
  args: z.object({ id: id('The endpoint (we_...).') }),
  errors: [],
  example: { id: EXAMPLE_ID },
  async run(ctx, args) {
    const current = await found(ctx.db.webhookEndpoint.findUnique({ where: { id: args.id } }), 'webhook endpoint', args.id);
    return deleteEndpoint(ctx, current);
  },
});
