import type { Booking } from '../../generated/prisma/client.ts';
import type { GateStatus } from '../../generated/prisma/enums.ts';
import { readSettings, type BusinessSettings } from '../business/business-settings.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { BOOKING_ACTIONS, unmetGuards, type BookingAction, type BookingFacts, type GateName } from './booking-state.ts';
import { applyBookingAction, compareAndSetBooking } from './booking-transitions.ts';

/** What a lifecycle step did: the booking after it, and the events it emitted, in order. */
export interface BookingOutcome {
  booking: Booking;
  events: string[];
}

/**
 * The step the platform takes by itself from here, or null (CONTRACT.md "Booking"): a booked
 * booking is confirmed when approval is automatic; a confirmed one is ready for pickup once
 * every gate is met.
 */
export function automaticAction(facts: BookingFacts, approvalMode: BusinessSettings['booking_approval_mode']): BookingAction | null {
  if (facts.state === 'booked' && approvalMode === 'automatic') return 'confirm';
  if (facts.state === 'confirmed' && unmetGuards(BOOKING_ACTIONS.mark_ready, facts).length === 0) return 'mark_ready';
  return null;
}

/**
 * Advance a booking while the platform may: call this after every gate change, in the same
 * transaction. Each step goes through the transition table and records its event.
 */
export async function advanceBooking(tx: Db, origin: EventOrigin, booking: Booking): Promise<BookingOutcome> {
  const business = await tx.business.findUnique({ where: { id: booking.businessId }, select: { settings: true } });
  const mode = readSettings(business?.settings).booking_approval_mode;
  const events: string[] = [];
  let current = booking;
  for (let action = automaticAction(current, mode); action; action = automaticAction(current, mode)) {
    current = await applyBookingAction(tx, origin, current, action);
    events.push(BOOKING_ACTIONS[action].event);
  }
  return { booking: current, events };
}

/** A booking that needs a human goes to `problem`, where the table allows it; elsewhere it stays. */
export async function flagProblemIfAllowed(tx: Db, origin: EventOrigin, booking: Booking): Promise<BookingOutcome> {
  if (!(BOOKING_ACTIONS.flag_problem.from as readonly string[]).includes(booking.state)) return { booking, events: [] };
  return { booking: await applyBookingAction(tx, origin, booking, 'flag_problem'), events: [BOOKING_ACTIONS.flag_problem.event] };
}

export type GateChanges = Partial<Record<`${GateName}Gate`, GateStatus>>;

/**
 * Change gates of a booking (never its state), compare-and-set like every lifecycle write.
 * A gate the business waived (`not_required`) stays waived whatever a check reports.
 */
export async function updateGates(tx: Db, booking: Booking, gates: GateChanges): Promise<Booking> {
  const data = Object.fromEntries(Object.entries(gates).filter(([gate]) => booking[gate as keyof GateChanges] !== 'not_required'));
  return Object.keys(data).length ? compareAndSetBooking(tx, booking, data) : booking;
}
