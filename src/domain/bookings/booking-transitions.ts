import type { Booking, Prisma } from '../../generated/prisma/client.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { runAction, type Lifecycle } from '../shared/lifecycle.ts';
import { bookingMachine, type BookingAction, type BookingFacts } from './booking-state.ts';
import { presentBooking } from './booking.fields.ts';

const GATE_FIELDS = ['paymentGate', 'identityGate', 'agreementGate', 'depositGate', 'insuranceGate'] as const;

/** Bookings on the lifecycle engine. A gate the business waived (`not_required`) stays waived whatever a check reports. */
export const bookingLifecycle: Lifecycle<Booking, BookingFacts, BookingAction> = {
  machine: bookingMachine,
  records: (db) => db.booking,
  facts: (booking) => booking,
  present: presentBooking,
  bookingId: (booking) => booking.id,
  prepare(booking, changes) {
    const kept = { ...changes };
    for (const gate of GATE_FIELDS) if (gate in kept && booking[gate] === 'not_required') delete kept[gate];
    return kept;
  },
};

type Query = { include?: Prisma.BookingInclude; select?: Prisma.BookingSelect };

/**
 * Run one action of the booking table inside `tx` (check, compare-and-set, event), then read
 * the booking back with the caller's GraphQL selection when one is given.
 */
export async function applyBookingAction(tx: Db, origin: EventOrigin, booking: Booking, action: BookingAction, changes: Prisma.BookingUpdateManyMutationInput = {}, query: Query = {}) {
  const updated = await runAction(tx, origin, bookingLifecycle, booking, action, changes as Record<string, unknown>);
  if (query.include || query.select) return tx.booking.findUniqueOrThrow({ ...query, where: { id: booking.id } } as { where: { id: string } });
  return updated;
}
