import type { RestRoute } from '../route.ts';

/** Payments, deposits and post-trip charges of a booking. */
export const moneyRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/bookings/{booking_id}/checkout', status: 201, field: 'Mutation.createCheckout', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/payment', field: 'Query.bookingPayment', args: { bookingId: 'path.booking_id' }, stage: 'first_release' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/refund', field: 'Mutation.refundBookingPayment', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/transactions', field: 'Query.bookingTransactions', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/deposit', field: 'Query.bookingDeposit', args: { bookingId: 'path.booking_id' }, stage: 'first_release' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/deposit', field: 'Mutation.secureBookingDeposit', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/deposit/capture', field: 'Mutation.captureBookingDeposit', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/deposit/release', field: 'Mutation.releaseBookingDeposit', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/charges', field: 'Query.bookingCharges', args: { bookingId: 'path.booking_id' }, stage: 'first_release' },
];
