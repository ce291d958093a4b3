import type { RestRoute } from '../route.ts';

/** Customers and messages. */
export const customerRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/customers', field: 'Query.customers', stage: 'later_scope' },
  { method: 'POST', path: '/v1/customers', field: 'Mutation.createCustomer', args: { input: 'body' }, status: 201, stage: 'later_scope' },
  { method: 'GET', path: '/v1/customers/{customer_id}', field: 'Query.customer', args: { id: 'path.customer_id' }, stage: 'first_release' },
  { method: 'GET', path: '/v1/customers/{customer_id}/bookings', field: 'Query.customerBookings', args: { customerId: 'path.customer_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/messages', field: 'Mutation.sendMessage', args: { input: 'body' }, status: 201, stage: 'first_release' },
];
