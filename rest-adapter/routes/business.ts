import type { RestRoute } from '../route.ts';

/** The business itself and its rental settings. */
export const businessRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/business', field: 'Query.business', args: {}, stage: 'later_scope' },
  { method: 'POST', path: '/v1/business', field: 'Mutation.updateBusiness', args: { input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/business/settings', field: 'Query.businessSettings', args: {}, stage: 'later_scope' },
  { method: 'POST', path: '/v1/business/settings', field: 'Mutation.updateBusinessSettings', args: { input: 'body' }, stage: 'later_scope' },
];
