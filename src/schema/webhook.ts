import { builder } from '../builder.ts';
import { WEBHOOK_DELIVERY_FIELDS, WEBHOOK_ENDPOINT_FIELDS } from '../domain/webhooks/webhook.fields.ts';
import {
  createWebhookEndpoint, getWebhookEndpoint, listDeliveries, listWebhookEndpoints, retryDelivery, sendTestWebhook, updateWebhookEndpoint,
} from '../domain/webhooks/webhook-endpoint.service.ts';
import { enums } from './enums.ts';
import { Event } from './event.ts';
import { exposePublicFields } from './fields.ts';
import { pageParams, toConnection } from './pagination.ts';

export const WebhookEndpoint = builder.prismaObject('WebhookEndpoint', {
  description: 'A URL that receives signed event deliveries (Standard Webhooks).',
  fields: (t) => ({
    ...(exposePublicFields(t, WEBHOOK_ENDPOINT_FIELDS, enums) as {}),
    secret: t.string({
      nullable: true,
      description: 'The whsec_ signing secret: in the answer that creates the endpoint, and never again.',
      resolve: (e) => ((e as { revealSecret?: boolean }).revealSecret ? e.secret : null),
    }),
  }),
});

const WebhookDelivery = builder.prismaObject('WebhookDelivery', {
  description: 'One delivery attempt of an event to an endpoint.',
  fields: (t) => ({ ...(exposePublicFields(t, WEBHOOK_DELIVERY_FIELDS, enums) as {}) }),
});

builder.prismaObject('WebhookMessage', {
  description: 'An event queued for one endpoint, with its delivery state.',
  fields: (t) => ({
    id: t.exposeID('id'),
    livemode: t.exposeBoolean('livemode'),
    endpointId: t.exposeID('endpointId'),
    eventId: t.exposeID('eventId'),
    eventType: t.exposeString('eventType'),
    state: t.exposeString('state'),
    attempts: t.exposeInt('attempts'),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime' }),
  }),
});

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({ required: true }),
    enabledEvents: t.stringList({ required: true }),
    description: t.string(),
    enabled: t.boolean(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string(),
    enabledEvents: t.stringList(),
    description: t.string(),
    enabled: t.boolean(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

const SendTestWebhookInput = builder.inputType('SendTestWebhookInput', {
  fields: (t) => ({ type: t.string({ description: 'Event type to send (default rental.started).' }) }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.connection({
    type: WebhookEndpoint,
    resolve: async (_root, args, ctx) => toConnection(await listWebhookEndpoints(ctx.domain, pageParams(args)), args),
  }),
  webhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => getWebhookEndpoint(ctx.domain, String(args.id)),
  }),
  webhookDeliveries: t.connection({
    type: WebhookDelivery,
    args: { endpointId: t.arg.id({ required: true }), eventId: t.arg.id() },
    resolve: async (_root, args, ctx) =>
      toConnection(await listDeliveries(ctx.domain, String(args.endpointId), { ...pageParams(args), eventId: args.eventId ? String(args.eventId) : null }), args),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: (_query, _root, args, ctx) => createWebhookEndpoint(ctx.domain, args.input),
  }),
  updateWebhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWebhookEndpointInput }) },
    resolve: (_query, _root, args, ctx) => updateWebhookEndpoint(ctx.domain, String(args.id), args.input ?? {}),
  }),
  retryWebhookDelivery: t.prismaField({
    type: 'WebhookMessage',
    args: { endpointId: t.arg.id({ required: true }), deliveryId: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => retryDelivery(ctx.domain, String(args.endpointId), String(args.deliveryId)),
  }),
  testSendWebhook: t.field({
    type: Event,
    args: { endpointId: t.arg.id({ required: true }), input: t.arg({ type: SendTestWebhookInput }) },
    resolve: (_root, args, ctx) => sendTestWebhook(ctx.domain, String(args.endpointId), args.input ?? {}),
  }),
}));
