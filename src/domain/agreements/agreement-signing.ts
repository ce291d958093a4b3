import type { Booking } from '../../generated/prisma/client.ts';
import { advanceBooking, type BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { createByAction, runAction } from '../shared/lifecycle.ts';
import { agreementLifecycle } from './agreement-state.ts';

/** The customer signed the rental agreement (`agreement.signed`): the agreement gate is satisfied and the booking advances. */
export async function recordAgreementSigned(tx: Db, origin: EventOrigin, booking: Booking, now: Date): Promise<BookingOutcome> {
  const gated = await applyBookingAction(tx, origin, booking, 'sign_agreement');
  const existing = await tx.agreement.findUnique({ where: { bookingId: booking.id } });
  if (existing) await runAction(tx, origin, agreementLifecycle, existing, 'sign', { signedAt: now });
  else await createByAction(tx, origin, agreementLifecycle, { from: 'draft' }, 'sign', { id: newId('agreement'), businessId: origin.businessId, livemode: origin.livemode, bookingId: booking.id, signedAt: now });
  const advanced = await advanceBooking(tx, origin, gated);
  return { booking: advanced.booking, events: ['agreement.signed', ...advanced.events] };
}
