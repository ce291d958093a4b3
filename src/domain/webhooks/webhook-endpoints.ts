import { z } from 'zod';
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
  description: "The business's webhook endpoints in the key's environment, newest first.",
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
  description: 'A webhook endpoint (its secret is shown only when it is created).',
  access: { permission: 'webhooks:read' },
  args: z.object({ id: id('The endpoint (we_...).') }),
  errors: [],
  example: { id: EXAMPLE_ID },
  run: (ctx, args) => found(ctx.db.webhookEndpoint.findUnique({ where: { id: args.id } }), 'webhook endpoint', args.id),
});

export const createWebhookEndpoint = defineOperation({
  name: 'createWebhookEndpoint',
  summary: 'Create an endpoint',
  description: 'Registers a URL for signed event deliveries (Standard Webhooks). The answer alone carries the whsec_ signing secret: keep it.',
  access: { permission: 'webhooks:write' },
  args: z.object({
    input: z
      .object({
        url: endpointUrl,
        enabledEvents,
        description: z.string().max(500).nullish().meta({ description: 'A note for you (what the endpoint is for).' }),
        enabled: z.boolean().default(true).meta({ description: 'Whether events are delivered (true by default).' }),
        metadata: newMetadata,
      })
      .meta({ id: 'CreateWebhookEndpointInput' }),
  }),
  errors: [WebhookErrors.urlNotAllowed],
  example: { input: { url: 'https://example.com/hooks/rentals', enabledEvents: ['booking.created', 'rental.started'], description: 'Order system' } },
  async run(ctx, { input }) {
    await assertDeliverable(ctx, input.url);
    const endpoint = await ctx.db.webhookEndpoint.create({
      data: { id: newId('webhookEndpoint'), ...ctx.tenant, ...input, description: input.description ?? null, secret: newEndpointSecret() },
    });
    return { ...endpoint, revealSecret: true };
  },
});

export const updateWebhookEndpoint = defineOperation({
  name: 'updateWebhookEndpoint',
  summary: 'Update endpoint configuration',
  description: 'Changes only the fields sent; a metadata key set to "" is removed.',
  access: { permission: 'webhooks:write' },
  args: z.object({
    id: id('The endpoint (we_...).'),
    input: z
      .object({
        url: endpointUrl.nullish(),
        enabledEvents: enabledEvents.nullish(),
        description: z.string().max(500).nullish().meta({ description: 'A note for you (what the endpoint is for).' }),
        enabled: z.boolean().nullish().meta({ description: 'false pauses deliveries; true resumes them.' }),
        metadata: metadata.nullish(),
      })
      .meta({ id: 'UpdateWebhookEndpointInput' })
      .nullish(),
  }),
  errors: [WebhookErrors.urlNotAllowed],
  example: { id: EXAMPLE_ID, input: { enabled: false } },
  async run(ctx, args) {
    const input = args.input ?? {};
    const current = await found(ctx.db.webhookEndpoint.findUnique({ where: { id: args.id } }), 'webhook endpoint', args.id);
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
  },
});
