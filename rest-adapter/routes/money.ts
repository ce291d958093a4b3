import type { RestRoute } from '../route.ts';

/** Payments, deposits and post-trip charges of a booking. */
export const moneyRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/bookings/{booking_id}/checkout', status: 201, field: 'Mutation.createCheckout', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/payment', field: 'Query.bookingPayment', args: { bookingId: 'path.booking_id' }, stage: 'first_release' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/payment/retry', field: 'Mutation.retryBookingPayment', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/refund', field: 'Mutation.refundBookingPayment', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/transactions', field: 'Query.bookingTransactions', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/deposit', field: 'Query.bookingDeposit', args: { bookingId: 'path.booking_id' }, stage: 'first_release' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/deposit', field: 'Mutation.secureBookingDeposit', args: { bookingId: 'path.booking_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/deposit/capture', field: 'Mutation.captureBookingDeposit', args: { bookingId: 'path.booking_id', input: 'body' }, answerExample: { state: 'partially_captured', next_states: ['released'] }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/deposit/release', field: 'Mutation.releaseBookingDeposit', args: { bookingId: 'path.booking_id' }, answerExample: { state: 'released', released_at: '2026-11-29T22:05:00.000Z', next_states: [] }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/bookings/{booking_id}/charges', field: 'Query.bookingCharges', args: { bookingId: 'path.booking_id' }, stage: 'first_release' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/charges', status: 201, field: 'Mutation.createCharge', args: { bookingId: 'path.booking_id', input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/charges/{charge_id}', field: 'Query.charge', args: { id: 'path.charge_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/charges/{charge_id}/collect', field: 'Mutation.collectCharge', args: { id: 'path.charge_id' }, answerExample: { state: 'succeeded', next_states: ['disputed'] }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/charges/{charge_id}/waive', field: 'Mutation.waiveCharge', args: { id: 'path.charge_id' }, answerExample: { state: 'waived', next_states: [] }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/charges/{charge_id}/disputes', status: 201, field: 'Mutation.createDispute', args: { chargeId: 'path.charge_id', input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/disputes', field: 'Query.disputes', stage: 'later_scope' },
  { method: 'GET', path: '/v1/disputes/{dispute_id}', field: 'Query.dispute', args: { id: 'path.dispute_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/disputes/{dispute_id}/approve', field: 'Mutation.approveDispute', args: { id: 'path.dispute_id' }, answerExample: { state: 'approved', next_states: ['closed'] }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/disputes/{dispute_id}/close', field: 'Mutation.closeDispute', args: { id: 'path.dispute_id' }, answerExample: { state: 'closed', next_states: [] }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/customers/{customer_id}/charges', field: 'Query.customerCharges', args: { customerId: 'path.customer_id' }, stage: 'later_scope' },
];
