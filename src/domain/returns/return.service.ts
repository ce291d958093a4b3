import type { Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { getBooking } from '../bookings/booking.service.ts';
import { originOf } from '../events/event.service.ts';
import type { DomainContext } from '../shared/context.ts';

/** POST /v1/bookings/{id}/return/complete: the reviewed return closes the rental (`rental.completed`). */
export async function completeReturn(ctx: DomainContext, bookingId: string, query: { include?: Prisma.BookingInclude; select?: Prisma.BookingSelect } = {}) {
  authorize(ctx.principal, 'returns:write');
  const booking = await getBooking(ctx, bookingId);
  return ctx.prisma.$transaction((tx) => applyBookingAction(tx, originOf(ctx), booking, 'complete_return', { completedAt: ctx.now() }, query));
}
