import type { Booking } from '../../generated/prisma/client.ts';
import { advanceBooking, flagProblemIfAllowed, type BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { createByAction, runAction } from '../shared/lifecycle.ts';
import { identityLifecycle, type IdentityAction } from './identity-state.ts';

/** Settle the booking's identity verification by an action of its table, creating the record on first report. */
async function settleCheck(tx: Db, origin: EventOrigin, booking: Booking, action: IdentityAction, changes: { failureCode: string | null }) {
  const existing = await tx.identityVerification.findUnique({ where: { bookingId: booking.id } });
  if (existing) return runAction(tx, origin, identityLifecycle, existing, action, changes);
  return createByAction(tx, origin, identityLifecycle, { from: 'pending' }, action, {
    id: newId('identityVerification'), businessId: origin.businessId, livemode: origin.livemode, bookingId: booking.id, ...changes,
  });
}

/** The customer's identity was verified: the identity gate is satisfied (the spec's gating rule 2) and the booking advances. */
export async function recordIdentityVerified(tx: Db, origin: EventOrigin, booking: Booking): Promise<BookingOutcome> {
  const gated = await applyBookingAction(tx, origin, booking, 'verify_identity');
  await settleCheck(tx, origin, booking, 'verify', { failureCode: null });
  const advanced = await advanceBooking(tx, origin, gated);
  return { booking: advanced.booking, events: ['identity.verified', ...advanced.events] };
}

/** The identity was rejected: the gate fails and the booking needs a human (`problem`) where the table allows. */
export async function recordIdentityRejected(tx: Db, origin: EventOrigin, booking: Booking, failureCode: string): Promise<BookingOutcome> {
  const gated = await applyBookingAction(tx, origin, booking, 'reject_identity');
  await settleCheck(tx, origin, booking, 'reject', { failureCode });
  if (gated.identityGate === 'not_required') return { booking: gated, events: ['identity.rejected'] };
  const flagged = await flagProblemIfAllowed(tx, origin, gated);
  return { booking: flagged.booking, events: ['identity.rejected', ...flagged.events] };
}
