import type { RestRoute } from '../route.ts';

/** OAuth apps a platform registers (the authorization server itself is src/oauth/, at /oauth/*). */
export const appRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/apps', field: 'Query.apps', stage: 'later_scope' },
  { method: 'POST', path: '/v1/apps', status: 201, field: 'Mutation.createApp', args: { input: 'body' }, answerExample: { client_secret: 'svc_test_cs_V2hlZWxzIHVwLCBrZXlzIGluIHRoZSBib3ggYW5kIG9mZiB3ZSBnbw' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/apps/{app_id}', field: 'Query.app', args: { id: 'path.app_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/apps/{app_id}', field: 'Mutation.updateApp', args: { id: 'path.app_id', input: 'body' }, stage: 'later_scope' },
  { method: 'DELETE', path: '/v1/apps/{app_id}', field: 'Mutation.deleteApp', args: { id: 'path.app_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/apps/{app_id}/webhooks', field: 'Query.appWebhookEndpoints', args: { appId: 'path.app_id' }, stage: 'later_scope' },
  {
    method: 'POST', path: '/v1/apps/{app_id}/webhooks', status: 201, field: 'Mutation.createAppWebhookEndpoint', args: { appId: 'path.app_id', input: 'body' },
    answerExample: { app_id: 'app_01jd3m4k5n6p7q8r9s0t1v2w3x', url: 'https://telematics.example.com/hooks/rentals', enabled_events: ['*'] }, stage: 'later_scope',
  },
  {
    method: 'GET', path: '/v1/apps/{app_id}/webhooks/{endpoint_id}', field: 'Query.appWebhookEndpoint', args: { appId: 'path.app_id', id: 'path.endpoint_id' },
    answerExample: { app_id: 'app_01jd3m4k5n6p7q8r9s0t1v2w3x', secret: null }, stage: 'later_scope',
  },
  {
    method: 'POST', path: '/v1/apps/{app_id}/webhooks/{endpoint_id}', field: 'Mutation.updateAppWebhookEndpoint', args: { appId: 'path.app_id', id: 'path.endpoint_id', input: 'body' },
    answerExample: { app_id: 'app_01jd3m4k5n6p7q8r9s0t1v2w3x', secret: null }, stage: 'later_scope',
  },
  {
    method: 'DELETE', path: '/v1/apps/{app_id}/webhooks/{endpoint_id}', field: 'Mutation.deleteAppWebhookEndpoint', args: { appId: 'path.app_id', id: 'path.endpoint_id' },
    answerExample: { app_id: 'app_01jd3m4k5n6p7q8r9s0t1v2w3x', secret: null }, stage: 'later_scope',
  },
  { method: 'GET', path: '/v1/connected_apps', field: 'Query.connectedApps', stage: 'later_scope' },
  { method: 'DELETE', path: '/v1/connected_apps/{connected_app_id}', field: 'Mutation.disconnectApp', args: { id: 'path.connected_app_id' }, stage: 'later_scope' },
];
