import type { Booking } from '../../generated/prisma/client.ts';
import { advanceBooking, updateGates, type BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { assertGatesChangeable } from '../bookings/booking-state.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { conflict } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/presenter.ts';
import { AGREEMENT_FIELDS } from './agreement.fields.ts';

/** The customer signed the rental agreement: the agreement gate is satisfied and the booking advances. */
export async function recordAgreementSigned(tx: Db, origin: EventOrigin, booking: Booking, now: Date): Promise<BookingOutcome> {
  assertGatesChangeable(booking, 'sign the agreement');
  const existing = await tx.agreement.findUnique({ where: { bookingId: booking.id } });
  if (existing && existing.state !== 'draft' && existing.state !== 'sent') {
    throw conflict('invalid_state_transition', `Cannot sign an agreement in state '${existing.state}'.`);
  }
  const signed = existing
    ? await tx.agreement.update({ where: { id: existing.id }, data: { state: 'signed', signedAt: now } })
    : await tx.agreement.create({ data: { id: newId('agreement'), businessId: origin.businessId, livemode: origin.livemode, bookingId: booking.id, state: 'signed', signedAt: now } });
  const gated = await updateGates(tx, booking, { agreementGate: 'satisfied' });
  await recordEvent(tx, origin, { type: 'agreement.signed', bookingId: booking.id, object: present('agreement', AGREEMENT_FIELDS, signed) });
  const advanced = await advanceBooking(tx, origin, gated);
  return { booking: advanced.booking, events: ['agreement.signed', ...advanced.events] };
}
