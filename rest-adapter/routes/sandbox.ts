import type { RestRoute } from '../route.ts';

const booking = { bookingId: 'path.booking_id' } as const;
const charge = { chargeId: 'path.charge_id' } as const;

/**
 * The sandbox simulation endpoints (the spec's "Sandbox simulation endpoints"): all POST, test
 * secret keys only (declared by each operation). Statuses as the spec gives them; the
 * failed-payment scenario answers its 402 as an error.
 */
export const sandboxRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/test/bookings', field: 'Mutation.testCreateBooking', args: { input: 'body' }, status: 201, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/payment/succeed', field: 'Mutation.testSucceedPayment', args: booking, answerExample: { state: 'confirmed', event: 'payment.succeeded', events: ['payment.succeeded'] }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/payment/fail', field: 'Mutation.testFailPayment', args: booking, stage: 'later_scope', answersError: { status: 402, code: 'card_declined' }, answerExample: { message: "The card was declined (sandbox simulation); booking bk_01jd3m4k5n6p7q8r9s0t1v2w3x is now 'pending_payment'." } },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/identity/verify', field: 'Mutation.testVerifyIdentity', args: booking, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/identity/fail', field: 'Mutation.testFailIdentity', args: booking, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/agreement/sign', field: 'Mutation.testSignAgreement', args: booking, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/deposit/secure', field: 'Mutation.testSecureDeposit', args: booking, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/pickup', field: 'Mutation.testStartRental', args: { ...booking, input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/make-late', field: 'Mutation.testMakeLate', args: booking, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/return', field: 'Mutation.testSubmitReturn', args: { ...booking, input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/charges/{charge_id}/succeed', field: 'Mutation.testSucceedCharge', args: charge, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/charges/{charge_id}/fail', field: 'Mutation.testFailCharge', args: charge, answerExample: { state: 'failed' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/charges/{charge_id}/dispute', field: 'Mutation.testDisputeCharge', args: { ...charge, input: 'body' }, status: 201, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/webhooks/{endpoint_id}/send', field: 'Mutation.testSendWebhook', args: { endpointId: 'path.endpoint_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/reset', field: 'Mutation.testReset', stage: 'later_scope' },
  { method: 'GET', path: '/v1/test/clock', field: 'Query.testClock', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/clock/advance', field: 'Mutation.testAdvanceClock', args: { input: 'body' }, stage: 'later_scope' },
];
