import { z } from 'zod';
import { recordAgreementSigned } from '../agreements/agreement-signing.ts';
import { markLate, startRental } from '../bookings/booking-rental.ts';
import { recordIdentityRejected, recordIdentityVerified } from '../identity/identity-checks.ts';
import { secureDeposit } from '../payments/deposit-hold.ts';
import { recordPaymentFailure, recordPaymentSuccess } from '../payments/payment-outcomes.ts';
import { submitReturn } from '../returns/return-submission.ts';
import type { DomainContext } from '../shared/context.ts';
import { DomainError } from '../shared/errors.ts';
import { parseInput } from '../shared/validation.ts';
import { bookingSimulation, simulateOnBooking, type BookingSimulation } from './sandbox-simulation.ts';

/*
 * The sandbox's booking scenarios (SPEC.md "Sandbox simulation endpoints"). Each runs the
 * domain step production runs when the processor, the verification provider or the counter
 * reports the same thing; only the trigger is simulated.
 */

const CARD_DECLINED = { code: 'card_declined', message: 'The card was declined' };

/** POST /v1/test/bookings/{id}/payment/succeed */
export async function simulatePaymentSuccess(ctx: DomainContext, id: string): Promise<BookingSimulation> {
  return bookingSimulation(await simulateOnBooking(ctx, id, 'payments:write', (tx, origin, b) => recordPaymentSuccess(tx, origin, b)));
}

/**
 * POST /v1/test/bookings/{id}/payment/fail: the decline and `payment.failed` are committed
 * first, then the request answers 402 `payment_error` `card_declined` (CONTRACT.md "Sandbox").
 */
export async function simulatePaymentFailure(ctx: DomainContext, id: string): Promise<never> {
  const outcome = await simulateOnBooking(ctx, id, 'payments:write', (tx, origin, b) => recordPaymentFailure(tx, origin, b, CARD_DECLINED));
  throw new DomainError('payment_error', 'card_declined', `${CARD_DECLINED.message} (sandbox simulation); booking ${outcome.booking.id} is now '${outcome.booking.state}'.`);
}

/** POST /v1/test/bookings/{id}/identity/verify */
export async function simulateIdentityVerified(ctx: DomainContext, id: string): Promise<BookingSimulation> {
  return bookingSimulation(await simulateOnBooking(ctx, id, 'identity:write', (tx, origin, b) => recordIdentityVerified(tx, origin, b)));
}

/** POST /v1/test/bookings/{id}/identity/fail */
export async function simulateIdentityRejected(ctx: DomainContext, id: string): Promise<BookingSimulation> {
  return bookingSimulation(await simulateOnBooking(ctx, id, 'identity:write', (tx, origin, b) => recordIdentityRejected(tx, origin, b, 'document_unverified')));
}

/** POST /v1/test/bookings/{id}/agreement/sign */
export async function simulateAgreementSigned(ctx: DomainContext, id: string): Promise<BookingSimulation> {
  return bookingSimulation(await simulateOnBooking(ctx, id, 'agreements:write', (tx, origin, b) => recordAgreementSigned(tx, origin, b, ctx.now())));
}

/** POST /v1/test/bookings/{id}/deposit/secure */
export async function simulateDepositSecured(ctx: DomainContext, id: string): Promise<BookingSimulation> {
  return bookingSimulation(await simulateOnBooking(ctx, id, 'deposits:write', (tx, origin, b) => secureDeposit(tx, origin, b, ctx.now())));
}

const odometer = z.number().int().min(0).max(10_000_000);
const pickupInput = z.object({ mileageOut: odometer.nullish() });
const returnInput = z.object({ mileageIn: odometer.nullish() });

/** POST /v1/test/bookings/{id}/pickup: start the rental, optionally with the odometer reading. */
export async function simulatePickup(ctx: DomainContext, id: string, raw: unknown): Promise<BookingSimulation> {
  const input = parseInput(pickupInput, raw ?? {});
  return bookingSimulation(await simulateOnBooking(ctx, id, 'pickup:write', (tx, origin, b) => startRental(tx, origin, b, input, ctx.now())));
}

/** POST /v1/test/bookings/{id}/make-late */
export async function simulateLate(ctx: DomainContext, id: string): Promise<BookingSimulation> {
  return bookingSimulation(await simulateOnBooking(ctx, id, 'bookings:write', (tx, origin, b) => markLate(tx, origin, b)));
}

/** POST /v1/test/bookings/{id}/return: submit the return, optionally with the odometer reading. */
export async function simulateReturn(ctx: DomainContext, id: string, raw: unknown): Promise<BookingSimulation> {
  const input = parseInput(returnInput, raw ?? {});
  return bookingSimulation(await simulateOnBooking(ctx, id, 'returns:write', (tx, origin, b) => submitReturn(tx, origin, b, input, ctx.now())));
}
