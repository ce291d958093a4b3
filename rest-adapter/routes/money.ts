import type { RestRoute } from '../route.ts';

/** Payments, deposits and post-trip charges of a booking. */
export const moneyRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/bookings/{booking_id}/payment', field: 'Query.bookingPayment', args: { bookingId: 'path.booking_id' }, stage: 'first_release' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/deposit', field: 'Query.bookingDeposit', args: { bookingId: 'path.booking_id' }, stage: 'first_release' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/charges', field: 'Query.bookingCharges', args: { bookingId: 'path.booking_id' }, stage: 'first_release' },
];
