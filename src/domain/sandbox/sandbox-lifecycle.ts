import { z } from 'zod';
import { recordAgreementSigned, SANDBOX_SIGNATURE } from '../agreements/agreement-signing.ts';
import { bookingStep } from '../bookings/booking-lifecycle.ts';
import { BookingErrors } from '../bookings/booking.errors.ts';
import { secureDeposit } from '../deposits/deposit-hold.ts';
import { recordIdentityRejected, recordIdentityVerified } from '../identity/identity-checks.ts';
import { recordPaymentFailure, recordPaymentSuccess } from '../payments/payment-outcomes.ts';
import { PaymentErrors } from '../payments/payment.errors.ts';
import { computeMileage } from '../returns/mileage.ts';
import { submitReturn } from '../returns/return-submission.ts';
import { bookingSimulation, bookingSimulationOperation, onBooking, replayedBookingSimulation } from './sandbox-simulation.ts';

/*
 * The sandbox's booking scenarios (the spec's "Sandbox simulation endpoints"). Each runs the
 * domain step production runs when the processor, the verification provider or the counter
 * reports the same thing; only the trigger is simulated.
 */

const CARD_DECLINED = { code: 'card_declined', message: 'The card was declined' };

export const simulatePaymentSuccess = bookingSimulationOperation({
  name: 'testSucceedPayment',
  summary: 'Simulate a successful payment',
  description: 'the payment succeeds; the booking is booked, then confirmed and made ready when it can.',
  permission: 'payments:write',
  input: null,
  run: async (ctx, id) => bookingSimulation(await onBooking(ctx, id, recordPaymentSuccess)),
});

/** The decline and `payment.failed` are committed first, then the request answers 402 `card_declined`. */
export const simulatePaymentFailure = bookingSimulationOperation({
  name: 'testFailPayment',
  summary: 'Simulate a declined payment (answers 402 card_declined)',
  description: 'the card is declined. Always answers the payment_error card_declined, after recording payment.failed.',
  permission: 'payments:write',
  input: null,
  errors: [PaymentErrors.cardDeclined],
  async run(ctx, id) {
    const outcome = await onBooking(ctx, id, (tx, origin, b) => recordPaymentFailure(tx, origin, b, CARD_DECLINED));
    throw PaymentErrors.cardDeclined(`${CARD_DECLINED.message} (sandbox simulation); booking ${outcome.booking.id} is now '${outcome.booking.state}'.`);
  },
  // The decline committed: a retry is answered the same 402.
  async replay(ctx, id, effect) {
    const replayed = await replayedBookingSimulation(ctx, id, effect);
    if (!replayed) return undefined;
    throw PaymentErrors.cardDeclined(`${CARD_DECLINED.message} (sandbox simulation); booking ${replayed.id} is now '${replayed.state}'.`);
  },
});

export const simulateIdentityVerified = bookingSimulationOperation({
  name: 'testVerifyIdentity',
  summary: 'Simulate an approved identity',
  description: 'the identity is verified.',
  permission: 'identity:write',
  input: null,
  run: async (ctx, id) => bookingSimulation(await onBooking(ctx, id, recordIdentityVerified)),
});

export const simulateIdentityRejected = bookingSimulationOperation({
  name: 'testFailIdentity',
  summary: 'Simulate a rejected identity',
  description: 'the identity is rejected; the booking needs a human (problem).',
  permission: 'identity:write',
  input: null,
  run: async (ctx, id) => bookingSimulation(await onBooking(ctx, id, (tx, origin, b) => recordIdentityRejected(tx, origin, b, 'document_unverified'))),
});

export const simulateAgreementSigned = bookingSimulationOperation({
  name: 'testSignAgreement',
  summary: 'Simulate a signed agreement',
  description: 'the rental agreement is signed.',
  permission: 'agreements:write',
  input: null,
  run: async (ctx, id) => bookingSimulation(await onBooking(ctx, id, (tx, origin, b) => recordAgreementSigned(tx, origin, b, ctx.now(), SANDBOX_SIGNATURE))),
});

export const simulateDepositSecured = bookingSimulationOperation({
  name: 'testSecureDeposit',
  summary: 'Simulate a secured deposit',
  description: 'the security deposit is secured.',
  permission: 'deposits:write',
  input: null,
  run: async (ctx, id) => bookingSimulation(await onBooking(ctx, id, (tx, origin, b) => secureDeposit(tx, origin, b, ctx.now()))),
});

const odometer = (description: string) => z.number().int().min(0).max(10_000_000).nullish().meta({ description });

export const simulatePickup = bookingSimulationOperation({
  name: 'testStartRental',
  summary: 'Start the test rental',
  description: 'pickup; the rental starts (booking_not_ready while a gate is unmet).',
  permission: 'pickup:write',
  errors: [BookingErrors.notReady],
  input: z.object({ mileageOut: odometer('Odometer at pickup.') }).meta({ id: 'TestPickupInput' }),
  inputExample: { mileageOut: 12500 },
  run: async (ctx, id, input) =>
    bookingSimulation(
      await onBooking(ctx, id, (tx, origin, b) => bookingStep(tx, origin, b, 'start_rental', { mileageOut: input?.mileageOut ?? b.mileageOut, pickedUpAt: ctx.now() })),
    ),
});

export const simulateLate = bookingSimulationOperation({
  name: 'testMakeLate',
  summary: 'Force the late state',
  description: 'the active rental becomes late.',
  permission: 'bookings:write',
  input: null,
  run: async (ctx, id) => bookingSimulation(await onBooking(ctx, id, (tx, origin, b) => bookingStep(tx, origin, b, 'make_late'))),
});

export const simulateReturn = bookingSimulationOperation({
  name: 'testSubmitReturn',
  summary: 'Submit the return',
  description: 'the return is submitted for review; over-miles become a mileage charge.',
  permission: 'returns:write',
  input: z.object({ mileageIn: odometer('Odometer at return.') }).meta({ id: 'TestReturnInput' }),
  inputExample: { mileageIn: 12980 },
  run: async (ctx, id, input) => bookingSimulation(await onBooking(ctx, id, (tx, origin, b) => submitReturn(tx, origin, b, { mileageIn: input?.mileageIn }, ctx.now()))),
  // The mileage as the return computed it, from the odometer readings the booking keeps.
  replay: (ctx, id, effect) =>
    replayedBookingSimulation(ctx, id, effect, (b) =>
      b.mileageIn !== null && b.mileageOut !== null
        ? computeMileage({ mileageOut: b.mileageOut, mileageIn: b.mileageIn, includedMiles: b.includedMiles, extraMileFeeCents: b.extraMileFeeCents, unlimitedMiles: b.unlimitedMiles })
        : null,
    ),
});
