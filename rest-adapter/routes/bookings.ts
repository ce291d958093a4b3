import type { RestRoute } from '../route.ts';

/** Bookings and their lifecycle history. */
export const bookingRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/bookings', field: 'Mutation.createBooking', args: { input: 'body' }, status: 201, stage: 'first_release' },
  { method: 'GET', path: '/v1/bookings', field: 'Query.bookings', stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}', field: 'Query.booking', args: { id: 'path.booking_id' }, stage: 'first_release' },
  { method: 'POST', path: '/v1/bookings/{booking_id}', field: 'Mutation.updateBooking', args: { id: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/extend', field: 'Mutation.extendBooking', args: { id: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/approve', field: 'Mutation.approveBooking', args: { id: 'path.booking_id' }, answerExample: { state: 'confirmed', hold_expires_at: null, gates: { payment: 'satisfied', identity: 'pending', agreement: 'pending', deposit: 'pending', insurance: 'not_required' }, next_states: ['canceled', 'problem'] }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/cancel', field: 'Mutation.cancelBooking', args: { id: 'path.booking_id', input: 'body' }, answerExample: { state: 'canceled', hold_expires_at: null, canceled_at: '2026-11-27T20:18:27.863Z', cancellation_reason: 'requested_by_customer', next_states: [] }, stage: 'first_release' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/return/complete', field: 'Mutation.completeReturn', args: { bookingId: 'path.booking_id' }, answerExample: { state: 'completed', hold_expires_at: null, mileage_out: 20000, mileage_in: 20450, gates: { payment: 'satisfied', identity: 'satisfied', agreement: 'satisfied', deposit: 'satisfied', insurance: 'not_required' }, next_states: ['problem'] }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/timeline', field: 'Query.bookingTimeline', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
];
