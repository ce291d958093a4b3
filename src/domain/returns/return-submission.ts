import type { Booking } from '../../generated/prisma/client.ts';
import type { BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { bookingStep } from '../bookings/booking-lifecycle.ts';
import { insertCharge } from '../charges/charge-outcomes.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { settingsOf } from '../business/business-settings.ts';
import { MAX_AMOUNT_CENTS } from '../shared/validation.ts';
import { computeMileage, type Mileage } from './mileage.ts';
import { followReturn } from './return-record.ts';

/**
 * A return past end_at and the business's grace costs `return_rules.late_fee_cents_per_hour`
 * for every started hour after end_at (nothing when the fee is 0, or within the grace), at
 * most MAX_AMOUNT_CENTS.
 */
async function lateReturnFee(tx: Db, booking: Booking, now: Date): Promise<{ hours: number; perHourCents: number; amountCents: number } | null> {
  const lateMs = now.getTime() - booking.endAt.getTime();
  if (lateMs <= 0) return null;
  const rules = (await settingsOf(tx, booking.businessId, booking.livemode)).return_rules;
  if (rules.late_fee_cents_per_hour === 0 || lateMs <= rules.grace_minutes * 60_000) return null;
  const hours = Math.ceil(lateMs / 3_600_000);
  // However late, one charge is at most the most any charge may be.
  return { hours, perHourCents: rules.late_fee_cents_per_hour, amountCents: Math.min(hours * rules.late_fee_cents_per_hour, MAX_AMOUNT_CENTS) };
}

export interface ReturnOutcome extends BookingOutcome {
  /** Null until both odometer readings exist. */
  mileage: Mileage | null;
  /** Post-trip charges the return created (a positive mileage fee). */
  chargeIds: string[];
}

/**
 * The vehicle came back: the booking goes to return review. When both readings exist the
 * mileage object is computed, and a positive fee becomes a post-trip charge of type
 * `mileage` (the contract, "Booking"); a return past end_at and the grace becomes a
 * `late_return` charge when the business charges for lateness.
 */
export async function submitReturn(tx: Db, origin: EventOrigin, booking: Booking, input: { mileageIn?: number | null }, now: Date): Promise<ReturnOutcome> {
  const mileageIn = input.mileageIn ?? booking.mileageIn;
  const mileage =
    mileageIn !== null && booking.mileageOut !== null
      ? computeMileage({ mileageOut: booking.mileageOut, mileageIn, includedMiles: booking.includedMiles, extraMileFeeCents: booking.extraMileFeeCents, unlimitedMiles: booking.unlimitedMiles })
      : null;
  const { booking: returned, events } = await bookingStep(tx, origin, booking, 'submit_return', { mileageIn, returnedAt: now });
  await followReturn(tx, origin, booking, 'submit', { submittedAt: now });
  const chargeIds: string[] = [];
  const late = await lateReturnFee(tx, booking, now);
  if (late) {
    const charge = await insertCharge(tx, origin, {
      bookingId: booking.id,
      customerId: booking.customerId,
      type: 'late_return',
      amountCents: late.amountCents,
      currency: booking.currency,
      description: `Returned ${late.hours} started hour(s) after end_at, at ${late.perHourCents} per hour`,
    });
    chargeIds.push(charge.id);
    events.push('charge.created');
  }
  if (mileage && mileage.mileageFeeCents > 0) {
    const charge = await insertCharge(tx, origin, {
      bookingId: booking.id,
      customerId: booking.customerId,
      type: 'mileage',
      amountCents: mileage.mileageFeeCents,
      currency: booking.currency,
      description: `${mileage.overMiles} miles over the ${mileage.includedMiles} included, at ${mileage.extraMileFeeCents} per mile`,
    });
    chargeIds.push(charge.id);
    events.push('charge.created');
  }
  return { booking: returned, events, mileage, chargeIds };
}
