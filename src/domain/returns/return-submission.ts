import type { Booking } from '../../generated/prisma/client.ts';
import type { BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { bookingStep } from '../bookings/booking-lifecycle.ts';
import { insertCharge } from '../charges/charge-outcomes.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { computeMileage, type Mileage } from './mileage.ts';
import { followReturn } from './return-record.ts';

export interface ReturnOutcome extends BookingOutcome {
  /** Null until both odometer readings exist. */
  mileage: Mileage | null;
  /** Post-trip charges the return created (a positive mileage fee). */
  chargeIds: string[];
}

/**
 * The vehicle came back: the booking goes to return review. When both readings exist the
 * mileage object is computed, and a positive fee becomes a post-trip charge of type
 * `mileage` (the contract, "Booking").
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
