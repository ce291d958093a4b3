import type { RestRoute } from '../route.ts';

/** Events (beyond the spec: catching up after downtime) and webhook endpoints. */
export const developerRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/events', field: 'Query.events', stage: 'later_scope' },
  { method: 'GET', path: '/v1/events/{event_id}', field: 'Query.event', args: { id: 'path.event_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/developers/webhooks', field: 'Query.webhookEndpoints', stage: 'later_scope' },
  { method: 'POST', path: '/v1/developers/webhooks', field: 'Mutation.createWebhookEndpoint', args: { input: 'body' }, status: 201, stage: 'later_scope' },
  { method: 'GET', path: '/v1/developers/webhooks/{endpoint_id}', field: 'Query.webhookEndpoint', args: { id: 'path.endpoint_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/developers/webhooks/{endpoint_id}', field: 'Mutation.updateWebhookEndpoint', args: { id: 'path.endpoint_id', input: 'body' }, stage: 'later_scope' },
  { method: 'DELETE', path: '/v1/developers/webhooks/{endpoint_id}', field: 'Mutation.deleteWebhookEndpoint', args: { id: 'path.endpoint_id' }, answerExample: { secret: null }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/developers/webhooks/{endpoint_id}/deliveries', field: 'Query.webhookDeliveries', args: { endpointId: 'path.endpoint_id' }, stage: 'later_scope' },
  {
    method: 'POST', path: '/v1/developers/webhooks/{endpoint_id}/deliveries/{delivery_id}/retry', field: 'Mutation.retryWebhookDelivery',
    args: { endpointId: 'path.endpoint_id', deliveryId: 'path.delivery_id' }, stage: 'later_scope',
  },
];
