import { builder } from '../builder.ts';
import { WEBHOOK_DELIVERY_FIELDS, WEBHOOK_ENDPOINT_FIELDS } from '../domain/webhooks/webhook.fields.ts';
import { listWebhookDeliveries, retryWebhookDelivery, sendTestWebhook } from '../domain/webhooks/webhook-deliveries.ts';
import { createWebhookEndpoint, deleteWebhookEndpoint, getWebhookEndpoint, listWebhookEndpoints, updateWebhookEndpoint } from '../domain/webhooks/webhook-endpoints.ts';
import {
  createAppWebhookEndpoint, deleteAppWebhookEndpoint, getAppWebhookEndpoint, listAppWebhookEndpoints, updateAppWebhookEndpoint,
} from '../domain/webhooks/app-webhook-endpoints.ts';
import { enums } from './enums.ts';
import { Event } from './event.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

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

const endpoints = operationField(listWebhookEndpoints);
const endpoint = operationField(getWebhookEndpoint);
const deliveries = operationField(listWebhookDeliveries);
const create = operationField(createWebhookEndpoint);
const update = operationField(updateWebhookEndpoint);
const remove = operationField(deleteWebhookEndpoint);
const appEndpoints = operationField(listAppWebhookEndpoints);
const appEndpoint = operationField(getAppWebhookEndpoint);
const appCreate = operationField(createAppWebhookEndpoint);
const appUpdate = operationField(updateAppWebhookEndpoint);
const appRemove = operationField(deleteAppWebhookEndpoint);
const retry = operationField(retryWebhookDelivery);
const sendTest = operationField(sendTestWebhook);

builder.queryFields((t) => ({
  webhookEndpoints: endpoints.connection(t, WebhookEndpoint),
  webhookEndpoint: endpoint.prisma(t, 'WebhookEndpoint'),
  webhookDeliveries: deliveries.connection(t, WebhookDelivery),
  appWebhookEndpoints: appEndpoints.connection(t, WebhookEndpoint),
  appWebhookEndpoint: appEndpoint.prisma(t, 'WebhookEndpoint'),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: create.prisma(t, 'WebhookEndpoint'),
  updateWebhookEndpoint: update.prisma(t, 'WebhookEndpoint'),
  deleteWebhookEndpoint: remove.prisma(t, 'WebhookEndpoint'),
  createAppWebhookEndpoint: appCreate.prisma(t, 'WebhookEndpoint'),
  updateAppWebhookEndpoint: appUpdate.prisma(t, 'WebhookEndpoint'),
  deleteAppWebhookEndpoint: appRemove.prisma(t, 'WebhookEndpoint'),
  retryWebhookDelivery: retry.prisma(t, 'WebhookMessage'),
  testSendWebhook: sendTest.plain(t, Event),
}));
