import type { RestRoute } from '../route.ts';

/** A booking's rental agreement: the document, sending it for signature, voiding it, its state. The customer's signing link is an edge step (src/http/edge/use-agreement-signing.ts). */
export const agreementRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/bookings/{booking_id}/agreement', status: 201, field: 'Mutation.createAgreement', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/agreement', field: 'Query.bookingAgreement', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/agreement/send', field: 'Mutation.sendAgreement', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/agreement/void', field: 'Mutation.voidAgreement', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/agreement/status', field: 'Query.agreementStatus', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
];
