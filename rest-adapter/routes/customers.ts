import type { RestRoute } from '../route.ts';

/** Customers and messages. */
export const customerRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/customers/{customer_id}', field: 'Query.customer', args: { id: 'path.customer_id' }, stage: 'first_release' },
  { method: 'POST', path: '/v1/messages', field: 'Mutation.sendMessage', args: { input: 'body' }, status: 201, stage: 'first_release' },
];
