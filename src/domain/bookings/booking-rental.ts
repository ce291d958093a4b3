import type { Booking } from '../../generated/prisma/client.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import type { BookingOutcome } from './booking-lifecycle.ts';
import { BOOKING_ACTIONS } from './booking-state.ts';
import { applyBookingAction } from './booking-transitions.ts';

/**
 * Pickup: the rental starts. The table refuses it with `booking_not_ready` and the unmet
 * gates while anything is missing (SPEC.md gating rule 1), before anything is written.
 */
export async function startRental(tx: Db, origin: EventOrigin, booking: Booking, input: { mileageOut?: number | null }, now: Date): Promise<BookingOutcome> {
  const started = await applyBookingAction(tx, origin, booking, 'start_rental', { mileageOut: input.mileageOut ?? booking.mileageOut, pickedUpAt: now });
  return { booking: started, events: [BOOKING_ACTIONS.start_rental.event] };
}

/** The rental ran past its end without a return. */
export async function markLate(tx: Db, origin: EventOrigin, booking: Booking): Promise<BookingOutcome> {
  return { booking: await applyBookingAction(tx, origin, booking, 'make_late'), events: [BOOKING_ACTIONS.make_late.event] };
}
