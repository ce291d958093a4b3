import type { RestRoute } from './routes.ts';

const booking = { bookingId: 'path.booking_id' } as const;
const charge = { chargeId: 'path.charge_id' } as const;

/**
 * The sandbox simulation endpoints (SPEC.md "Sandbox simulation endpoints"): all POST, test
 * secret keys only (enforced by the domain, src/domain/access/permissions.ts). Statuses as
 * the spec gives them; the failed-payment scenario answers its 402 as an error.
 */
export const sandboxRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/test/bookings', field: 'Mutation.testCreateBooking', args: { input: 'body' }, status: 201, summary: 'Create a test booking', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/payment/succeed', field: 'Mutation.testSucceedPayment', args: booking, summary: 'Simulate a successful payment', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/payment/fail', field: 'Mutation.testFailPayment', args: booking, summary: 'Simulate a declined payment (answers 402 card_declined)', stage: 'later_scope', answersError: { status: 402, code: 'card_declined' } },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/identity/verify', field: 'Mutation.testVerifyIdentity', args: booking, summary: 'Simulate an approved identity', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/identity/fail', field: 'Mutation.testFailIdentity', args: booking, summary: 'Simulate a rejected identity', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/agreement/sign', field: 'Mutation.testSignAgreement', args: booking, summary: 'Simulate a signed agreement', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/deposit/secure', field: 'Mutation.testSecureDeposit', args: booking, summary: 'Simulate a secured deposit', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/pickup', field: 'Mutation.testStartRental', args: { ...booking, input: 'body' }, summary: 'Start the test rental', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/make-late', field: 'Mutation.testMakeLate', args: booking, summary: 'Force the late state', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/bookings/{booking_id}/return', field: 'Mutation.testSubmitReturn', args: { ...booking, input: 'body' }, summary: 'Submit the return', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/charges/{charge_id}/succeed', field: 'Mutation.testSucceedCharge', args: charge, summary: 'Simulate a successful post-trip charge', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/charges/{charge_id}/fail', field: 'Mutation.testFailCharge', args: charge, summary: 'Simulate a failed post-trip charge', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/charges/{charge_id}/dispute', field: 'Mutation.testDisputeCharge', args: { ...charge, input: 'body' }, status: 201, summary: 'Open a test dispute', stage: 'later_scope' },
  { method: 'POST', path: '/v1/test/reset', field: 'Mutation.testReset', summary: "Delete the business's sandbox data", stage: 'later_scope' },
];
