import type { RestRoute } from '../route.ts';

/** Identity verification: start it with uploaded documents, read its state, and fetch short-lived links to its media. */
export const identityRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/bookings/{booking_id}/identity-verification', field: 'Mutation.startIdentityVerification', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/identity-verification', field: 'Query.bookingIdentityVerification', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/identity-verification/media', field: 'Query.identityVerificationMedia', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
];
