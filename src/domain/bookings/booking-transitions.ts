import type { Booking, Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../shared/context.ts';
import { conflict } from '../shared/errors.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import { transition, type BookingAction } from './booking-state.ts';
import { presentBooking } from './booking.fields.ts';

/**
 * Write `data` only if nobody changed the booking since `booking` was read; a lost race is a
 * 409 naming the state the booking is in now. Every booking write of the lifecycle uses it.
 */
export async function compareAndSetBooking(tx: Db, booking: Booking, data: Prisma.BookingUpdateManyMutationInput): Promise<Booking> {
  const { count } = await tx.booking.updateMany({ where: { id: booking.id, state: booking.state, updatedAt: booking.updatedAt }, data });
  if (count !== 1) {
    const current = await tx.booking.findUnique({ where: { id: booking.id }, select: { state: true } });
    throw conflict('invalid_state_transition', `The booking changed while this request ran; it is now '${current?.state ?? 'unknown'}'. Retry with its current state.`);
  }
  return tx.booking.findUniqueOrThrow({ where: { id: booking.id } });
}

/**
 * Run one action of the transition table on a booking inside `tx`: check it, write the new
 * state only if nobody changed the booking meanwhile (compare-and-set on the state), and
 * record the action's event in the same transaction.
 */
export async function applyBookingAction(
  tx: Db,
  origin: EventOrigin,
  booking: Booking,
  action: BookingAction,
  changes: Prisma.BookingUpdateManyMutationInput = {},
  query: { include?: Prisma.BookingInclude; select?: Prisma.BookingSelect } = {},
) {
  const rule = transition(booking, action);
  const updated = await compareAndSetBooking(tx, booking, { ...changes, state: rule.to });
  if (rule.event) await recordEvent(tx, origin, { type: rule.event, bookingId: booking.id, object: presentBooking(updated) });
  if (query.include || query.select) return tx.booking.findUniqueOrThrow({ ...query, where: { id: booking.id } } as { where: { id: string } });
  return updated;
}
