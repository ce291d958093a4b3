import type { Booking } from '../../generated/prisma/client.ts';
import type { CheckState } from '../../generated/prisma/enums.ts';
import { advanceBooking, flagProblemIfAllowed, updateGates, type BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { assertGatesChangeable } from '../bookings/booking-state.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { conflict } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/presenter.ts';
import { IDENTITY_VERIFICATION_FIELDS } from './identity.fields.ts';


async function settleCheck(tx: Db, origin: EventOrigin, booking: Booking, state: CheckState, failureCode: string | null) {
  assertGatesChangeable(booking, state === 'verified' ? 'verify the identity' : 'reject the identity');
  const existing = await tx.identityVerification.findUnique({ where: { bookingId: booking.id } });
  if (existing?.state === state || existing?.state === 'canceled') {
    throw conflict('invalid_state_transition', `Cannot settle an identity verification in state '${existing.state}'.`);
  }
  const row = existing
    ? await tx.identityVerification.update({ where: { id: existing.id }, data: { state, failureCode } })
    : await tx.identityVerification.create({ data: { id: newId('identityVerification'), businessId: origin.businessId, livemode: origin.livemode, bookingId: booking.id, state, failureCode } });
  const gated = await updateGates(tx, booking, { identityGate: state === 'verified' ? 'satisfied' : 'failed' });
  await recordEvent(tx, origin, { type: state === 'verified' ? 'identity.verified' : 'identity.rejected', bookingId: booking.id, object: present('identity_verification', IDENTITY_VERIFICATION_FIELDS, row) });
  return gated;
}

/** The customer's identity was verified: the identity gate is satisfied (SPEC.md gating rule 2) and the booking advances. */
export async function recordIdentityVerified(tx: Db, origin: EventOrigin, booking: Booking): Promise<BookingOutcome> {
  const advanced = await advanceBooking(tx, origin, await settleCheck(tx, origin, booking, 'verified', null));
  return { booking: advanced.booking, events: ['identity.verified', ...advanced.events] };
}

/** The identity was rejected: the gate fails and the booking needs a human (`problem`) where the table allows. */
export async function recordIdentityRejected(tx: Db, origin: EventOrigin, booking: Booking, failureCode: string): Promise<BookingOutcome> {
  const gated = await settleCheck(tx, origin, booking, 'rejected', failureCode);
  if (gated.identityGate === 'not_required') return { booking: gated, events: ['identity.rejected'] };
  const flagged = await flagProblemIfAllowed(tx, origin, gated);
  return { booking: flagged.booking, events: ['identity.rejected', ...flagged.events] };
}
