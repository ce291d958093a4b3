import type { RestRoute } from '../route.ts';

/** A booking's rental agreement: the document, sending it for signature, voiding it, its state. The customer's signing link is an edge step (src/http/edge/use-agreement-signing.ts). */
export const agreementRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/bookings/{booking_id}/agreement', status: 201, field: 'Mutation.createAgreement', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/agreement', field: 'Query.bookingAgreement', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/agreement/send', field: 'Mutation.sendAgreement', args: { bookingId: 'path.booking_id', input: 'body' }, answerExample: { state: 'sent', sent_at: '2026-11-27T20:12:21.463Z', next_states: ['draft', 'signed', 'voided'] }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/agreement/void', field: 'Mutation.voidAgreement', args: { bookingId: 'path.booking_id', input: 'body' }, answerExample: { state: 'voided', sent_at: '2026-11-27T20:15:19.075Z', voided_at: '2026-11-27T20:15:19.930Z', void_reason: 'The renter asked for a second driver; a new agreement follows.', next_states: [] }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/agreement/status', field: 'Query.agreementStatus', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
];
