import { sandboxRoutes } from './sandbox-routes.ts';

/**
 * The REST contract of SPEC.md and CONTRACT.md as a table keyed by schema coordinates: each
 * /v1 path runs one GraphQL field through the same pipeline as /graphql. No rule lives here;
 * a route only says where the field's arguments come from.
 */
export type ReleaseStage = 'first_release' | 'later_scope';

export interface RestRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** Schema coordinate run by this route, e.g. `Mutation.createBooking`. */
  field: `Query.${string}` | `Mutation.${string}`;
  /** Argument → `path.<name>` or `body`; unlisted arguments come from query parameters. */
  args?: Record<string, `path.${string}` | 'body'>;
  /** Success status (default 200). */
  status?: number;
  summary: string;
  stage: ReleaseStage;
  /** Callable with a publishable key (CONTRACT.md's allow list; enforced by the domain). */
  publishable?: boolean;
  /** A simulation whose answer is always this error (the sandbox's declined payment). */
  answersError?: { status: number; code: string };
}

export const routes: RestRoute[] = [
  // Vehicles, availability, quotes
  { method: 'GET', path: '/v1/vehicles', field: 'Query.vehicles', summary: 'List vehicles', stage: 'first_release', publishable: true },
  { method: 'POST', path: '/v1/vehicles', field: 'Mutation.createVehicle', args: { input: 'body' }, status: 201, summary: 'Create a vehicle', stage: 'later_scope' },
  { method: 'GET', path: '/v1/vehicles/{vehicle_id}', field: 'Query.vehicle', args: { id: 'path.vehicle_id' }, summary: 'Retrieve a vehicle', stage: 'first_release', publishable: true },
  { method: 'GET', path: '/v1/availability', field: 'Query.availability', summary: 'Search available vehicles', stage: 'first_release', publishable: true },
  { method: 'POST', path: '/v1/quotes', field: 'Mutation.createQuote', args: { input: 'body' }, status: 201, summary: 'Create a rental quote', stage: 'first_release', publishable: true },
  { method: 'GET', path: '/v1/quotes/{quote_id}', field: 'Query.quote', args: { id: 'path.quote_id' }, summary: 'Retrieve a quote', stage: 'later_scope', publishable: true },
  // Bookings
  { method: 'POST', path: '/v1/bookings', field: 'Mutation.createBooking', args: { input: 'body' }, status: 201, summary: 'Create a booking', stage: 'first_release' },
  { method: 'GET', path: '/v1/bookings', field: 'Query.bookings', summary: 'List bookings', stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}', field: 'Query.booking', args: { id: 'path.booking_id' }, summary: 'Retrieve a booking', stage: 'first_release' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/cancel', field: 'Mutation.cancelBooking', args: { id: 'path.booking_id', input: 'body' }, summary: 'Cancel a booking', stage: 'first_release' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/return/complete', field: 'Mutation.completeReturn', args: { bookingId: 'path.booking_id' }, summary: 'Complete an eligible return', stage: 'later_scope' },
  // Payments, deposits, charges
  { method: 'GET', path: '/v1/bookings/{booking_id}/payment', field: 'Query.bookingPayment', args: { bookingId: 'path.booking_id' }, summary: 'Retrieve payment state', stage: 'first_release' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/deposit', field: 'Query.bookingDeposit', args: { bookingId: 'path.booking_id' }, summary: 'Retrieve deposit state', stage: 'first_release' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/charges', field: 'Query.bookingCharges', args: { bookingId: 'path.booking_id' }, summary: 'List charges for a booking', stage: 'first_release' },
  // Customers and messages
  { method: 'GET', path: '/v1/customers/{customer_id}', field: 'Query.customer', args: { id: 'path.customer_id' }, summary: 'Retrieve a customer', stage: 'first_release' },
  { method: 'POST', path: '/v1/messages', field: 'Mutation.sendMessage', args: { input: 'body' }, status: 201, summary: 'Send a message', stage: 'first_release' },
  // Lifecycle history and events (GET /v1/events goes beyond the spec: catching up after downtime)
  { method: 'GET', path: '/v1/bookings/{booking_id}/timeline', field: 'Query.bookingTimeline', args: { bookingId: 'path.booking_id' }, summary: 'Retrieve lifecycle history', stage: 'later_scope' },
  { method: 'GET', path: '/v1/events', field: 'Query.events', summary: 'List events', stage: 'later_scope' },
  { method: 'GET', path: '/v1/events/{event_id}', field: 'Query.event', args: { id: 'path.event_id' }, summary: 'Retrieve an event', stage: 'later_scope' },
  // Webhook endpoints
  { method: 'GET', path: '/v1/developers/webhooks', field: 'Query.webhookEndpoints', summary: 'List webhook endpoints', stage: 'later_scope' },
  { method: 'POST', path: '/v1/developers/webhooks', field: 'Mutation.createWebhookEndpoint', args: { input: 'body' }, status: 201, summary: 'Create an endpoint', stage: 'later_scope' },
  { method: 'GET', path: '/v1/developers/webhooks/{endpoint_id}', field: 'Query.webhookEndpoint', args: { id: 'path.endpoint_id' }, summary: 'Retrieve an endpoint', stage: 'later_scope' },
  { method: 'POST', path: '/v1/developers/webhooks/{endpoint_id}', field: 'Mutation.updateWebhookEndpoint', args: { id: 'path.endpoint_id', input: 'body' }, summary: 'Update endpoint configuration', stage: 'later_scope' },
  { method: 'GET', path: '/v1/developers/webhooks/{endpoint_id}/deliveries', field: 'Query.webhookDeliveries', args: { endpointId: 'path.endpoint_id' }, summary: 'List delivery attempts', stage: 'later_scope' },
  { method: 'POST', path: '/v1/developers/webhooks/{endpoint_id}/deliveries/{delivery_id}/retry', field: 'Mutation.retryWebhookDelivery', args: { endpointId: 'path.endpoint_id', deliveryId: 'path.delivery_id' }, summary: 'Send a delivery again', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/webhooks/{endpoint_id}/send', field: 'Mutation.testSendWebhook', args: { endpointId: 'path.endpoint_id', input: 'body' }, summary: 'Send a test webhook to a registered sandbox endpoint', stage: 'later_scope' },
  ...sandboxRoutes,
];

/** REST names of the Relay arguments of list routes (CONTRACT.md "Lists"). */
export const LIST_PARAMS: Record<string, string> = { first: 'limit', after: 'starting_after', before: 'ending_before' };
