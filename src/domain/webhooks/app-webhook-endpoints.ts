import { z } from 'zod';
import { found } from '../shared/found.ts';
import type { DomainContext } from '../shared/context.ts';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';
import { createEndpoint, createEndpointInput, deleteEndpoint, updateEndpoint, updateEndpointInput } from './webhook-endpoints.ts';
import { WebhookErrors } from './webhook.errors.ts';

/*
 * An OAuth app's webhook endpoints (the contract, "OAuth apps": POST /v1/apps/{id}/webhooks):
 * registered by the platform business that owns the app, with its key, in the app's
 * environment. They are the business's webhook endpoints (the same rules, secret, deliveries,
 * retries and log), marked with the app: they receive the events of every business connected
 * to it whose objects its grant may read (src/domain/apps/app-events.ts), each with its
 * business_id, instead of the platform's own.
 */

const APP_ID = 'app_01jd3m4k5n6p7q8r9s0t1v2w3x';
const ENDPOINT_ID = 'we_01jd3m4k5n6p7q8r9s0t1v2w3x';
const appId = id('The app (app_...).');
const endpointId = id('The endpoint (we_...).');

/** The caller's app (not deleted), or 404. */
const appOf = (ctx: DomainContext, app: string) => found(ctx.db.app.findFirst({ where: { id: app, deletedAt: null }, select: { id: true } }), 'app', app);

/** An endpoint of the caller's app, or 404. */
async function endpointOf(ctx: DomainContext, app: string, endpoint: string) {
  await appOf(ctx, app);
  return found(ctx.db.webhookEndpoint.findFirst({ where: { id: endpoint, appId: app } }), 'webhook endpoint', endpoint);
}

export const listAppWebhookEndpoints = defineOperation({
  name: 'appWebhookEndpoints',
  summary: "List an app's webhook endpoints",
  description: "The app's webhook endpoints, newest first: they receive the events of the businesses connected to the app.",
  access: { permission: 'webhooks:read' },
  args: z.object({ appId }),
  errors: [],
  example: { appId: APP_ID },
  async run(ctx, args, { page }) {
    await appOf(ctx, args.appId);
    const p = pageQuery(page ?? {});
    return toPage(await ctx.db.webhookEndpoint.findMany({ where: { ...p.where, appId: args.appId }, orderBy: p.orderBy, take: p.take }), p);
  },
});

export const getAppWebhookEndpoint = defineOperation({
  name: 'appWebhookEndpoint',
  summary: "Retrieve an app's endpoint",
  description: 'A webhook endpoint of the app (its secret is shown only when it is created).',
  access: { permission: 'webhooks:read' },
  args: z.object({ appId, id: endpointId }),
  errors: [],
  example: { appId: APP_ID, id: ENDPOINT_ID },
  run: (ctx, args) => endpointOf(ctx, args.appId, args.id),
});

export const createAppWebhookEndpoint = defineOperation({
  name: 'createAppWebhookEndpoint',
  summary: 'Create an app webhook endpoint',
  description:
    "Registers a URL that receives the events of every business connected to the app (an active connection, in the app's environment), each carrying the business's business_id, signed per Standard Webhooks like every delivery. An event reaches it when the connection's grant may read its object (booking.* needs bookings:read ...; events:read receives every type), and app.authorized and app.deauthorized of the app's own connections always. The answer alone carries the whsec_ signing secret: keep it.",
  access: { permission: 'webhooks:write' },
  args: z.object({ appId, input: createEndpointInput }),
  errors: [WebhookErrors.urlNotAllowed],
  example: { appId: APP_ID, input: { url: 'https://telematics.example.com/hooks/rentals', enabledEvents: ['*'], description: 'Every connected business' } },
  async run(ctx, args) {
    const app = await appOf(ctx, args.appId);
    return createEndpoint(ctx, args.input, app.id);
  },
});

export const updateAppWebhookEndpoint = defineOperation({
  name: 'updateAppWebhookEndpoint',
  summary: "Update an app's endpoint",
  description: 'Changes only the fields sent; a metadata key set to "" is removed.',
  access: { permission: 'webhooks:write' },
  args: z.object({ appId, id: endpointId, input: updateEndpointInput }),
  errors: [WebhookErrors.urlNotAllowed],
  example: { appId: APP_ID, id: ENDPOINT_ID, input: { enabledEvents: ['booking.created', 'app.deauthorized'] } },
  async run(ctx, args) {
    return updateEndpoint(ctx, await endpointOf(ctx, args.appId, args.id), args.input ?? {});
  },
});

export const deleteAppWebhookEndpoint = defineOperation({
  name: 'deleteAppWebhookEndpoint',
  summary: "Delete an app's endpoint",
  description: 'Deletes the endpoint: nothing more is delivered to it, and its queued deliveries and delivery log go with it. Answers the endpoint as it was.',
  access: { permission: 'webhooks:write' },
  args: z.object({ appId, id: endpointId }),
  errors: [],
  example: { appId: APP_ID, id: ENDPOINT_ID },
  async run(ctx, args) {
    return deleteEndpoint(ctx, await endpointOf(ctx, args.appId, args.id));
  },
});
