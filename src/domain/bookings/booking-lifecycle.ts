import type { Booking } from '../../generated/prisma/client.ts';
import { settingsOf, type BusinessSettings } from '../business/business-settings.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { bookingMachine, type BookingAction, type BookingFacts } from './booking-state.ts';
import { applyBookingAction } from './booking-transitions.ts';

/** What a lifecycle step did: the booking after it, and the events it emitted, in order. */
export interface BookingOutcome {
  booking: Booking;
  events: string[];
}

/**
 * The step the platform takes by itself from here, or null (the contract's "Booking"): a
 * booking in problem before pickup resumes once its cause is gone (booked again); a booked
 * booking is confirmed when approval is automatic; a confirmed one is ready for pickup once
 * every gate is met.
 */
export function automaticAction(facts: BookingFacts, approvalMode: BusinessSettings['booking_approval_mode']): BookingAction | null {
  if (bookingMachine.can(facts, 'resume')) return 'resume';
  if (facts.state === 'booked' && approvalMode === 'automatic') return 'confirm';
  if (bookingMachine.can(facts, 'mark_ready')) return 'mark_ready';
  return null;
}

/**
 * Advance a booking while the platform may: call this after every gate change, in the same
 * transaction. Each step goes through the table and records its event.
 */
export async function advanceBooking(tx: Db, origin: EventOrigin, booking: Booking): Promise<BookingOutcome> {
  const mode = (await settingsOf(tx, booking.businessId, booking.livemode)).booking_approval_mode;
  const events: string[] = [];
  let current = booking;
  for (let action = automaticAction(current, mode); action; action = automaticAction(current, mode)) {
    current = await applyBookingAction(tx, origin, current, action);
    events.push(bookingMachine.actions[action].event!);
  }
  return { booking: current, events };
}

/** Run a booking action, reporting its event (if any) as an outcome. */
export async function bookingStep(tx: Db, origin: EventOrigin, booking: Booking, action: BookingAction, changes: Parameters<typeof applyBookingAction>[4] = {}): Promise<BookingOutcome> {
  const updated = await applyBookingAction(tx, origin, booking, action, changes);
  const event = bookingMachine.actions[action].event;
  return { booking: updated, events: event ? [event] : [] };
}

/** A booking that needs a human goes to `problem`, where the table allows it; elsewhere it stays. */
export async function flagProblemIfAllowed(tx: Db, origin: EventOrigin, booking: Booking): Promise<BookingOutcome> {
  if (!bookingMachine.can(booking, 'flag_problem')) return { booking, events: [] };
  return bookingStep(tx, origin, booking, 'flag_problem');
}
