import type { RestRoute } from '../route.ts';

/** The trip: insurance, pickup (readiness, photos, odometer, hand-over), vehicle access, and return (photos, odometer, review). */
export const tripRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/bookings/{booking_id}/insurance', field: 'Query.bookingInsurance', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/insurance', field: 'Mutation.submitInsurance', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/insurance/approve', field: 'Mutation.approveInsurance', args: { bookingId: 'path.booking_id' }, answerExample: { state: 'approved', next_states: [] }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/insurance/reject', field: 'Mutation.rejectInsurance', args: { bookingId: 'path.booking_id', input: 'body' }, answerExample: { state: 'rejected', rejection_reason: 'The policy does not cover rentals.', next_states: ['submitted'] }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/pickup-readiness', field: 'Query.pickupReadiness', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/pickup/photos', field: 'Mutation.addPickupPhotos', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/pickup/mileage', field: 'Mutation.recordPickupMileage', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/pickup/complete', field: 'Mutation.completePickup', args: { bookingId: 'path.booking_id', input: 'body' }, answerExample: { state: 'active', hold_expires_at: null, mileage_out: 20000, gates: { payment: 'satisfied', identity: 'satisfied', agreement: 'satisfied', deposit: 'satisfied', insurance: 'not_required' }, next_states: ['late', 'return_in_review', 'problem'] }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/vehicle-access', field: 'Query.vehicleAccess', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/vehicle-access', field: 'Mutation.configureVehicleAccess', args: { bookingId: 'path.booking_id', input: 'body' }, answerExample: { state: 'configured', released_at: null, revoked_at: null }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/vehicle-access/release', field: 'Mutation.releaseVehicleAccess', args: { bookingId: 'path.booking_id' }, answerExample: { state: 'released', revoked_at: null }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/vehicle-access/revoke', field: 'Mutation.revokeVehicleAccess', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/return', field: 'Query.bookingReturn', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/return/start', field: 'Mutation.startReturn', args: { bookingId: 'path.booking_id' }, answerExample: { state: 'in_progress', started_at: '2026-11-29T21:20:00.000Z' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/return/photos', field: 'Mutation.addReturnPhotos', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/return/mileage', field: 'Mutation.recordReturnMileage', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/return/submit', field: 'Mutation.submitReturn', args: { bookingId: 'path.booking_id', input: 'body' }, answerExample: { state: 'submitted', started_at: '2026-11-29T21:20:00.000Z', submitted_at: '2026-11-29T21:34:12.000Z' }, stage: 'later_scope' },
];
