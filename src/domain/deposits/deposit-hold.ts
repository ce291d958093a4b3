import type { Booking } from '../../generated/prisma/client.ts';
import { advanceBooking, updateGates, type BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { assertGatesChangeable } from '../bookings/booking-state.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { conflict } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/presenter.ts';
import { DEPOSIT_FIELDS } from './payment.fields.ts';

const SECURABLE = ['required', 'pending', 'failed'];

/**
 * The security deposit is held on the customer's card: the deposit is secured, a
 * `deposit_hold` transaction is written, the deposit gate is satisfied (SPEC.md gating rule 1)
 * and the booking advances if it now can.
 */
export async function secureDeposit(tx: Db, origin: EventOrigin, booking: Booking, now: Date): Promise<BookingOutcome> {
  assertGatesChangeable(booking, 'secure the deposit');
  const deposit = await tx.deposit.findUniqueOrThrow({ where: { bookingId: booking.id } });
  if (!SECURABLE.includes(deposit.state)) throw conflict('invalid_state_transition', `Cannot secure a deposit in state '${deposit.state}'.`);
  const secured = await tx.deposit.update({ where: { id: deposit.id }, data: { state: 'secured', securedAt: now } });
  await tx.transaction.create({
    data: { id: newId('transaction'), businessId: origin.businessId, livemode: origin.livemode, bookingId: booking.id, type: 'deposit_hold', status: 'succeeded', amountCents: deposit.amountCents, currency: deposit.currency },
  });
  const gated = await updateGates(tx, booking, { depositGate: 'satisfied' });
  await recordEvent(tx, origin, { type: 'deposit.secured', bookingId: booking.id, object: present('deposit', DEPOSIT_FIELDS, secured) });
  const advanced = await advanceBooking(tx, origin, gated);
  return { booking: advanced.booking, events: ['deposit.secured', ...advanced.events] };
}
