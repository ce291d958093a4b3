import { z } from 'zod';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { advanceBooking, bookingStep } from './booking-lifecycle.ts';
import { readBooking } from './get-booking.ts';

export const approveBooking = defineOperation({
  name: 'approveBooking',
  summary: 'Approve a booking',
  description:
    "Confirms a paid booking held for approval (booking_approval_mode manual): booked → confirmed (booking.confirmed), then ready_for_pickup when every gate is already met (pickup.ready). With automatic approval bookings confirm by themselves, so there is nothing to approve (409, naming the state).",
  access: { permission: 'bookings:write' },
  args: z.object({ id: id('The booking (bk_...).') }),
  errors: [CommonErrors.invalidStateTransition],
  example: { id: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.id);
    const origin = originOf(ctx);
    await ctx.db.$transaction(async (tx) => {
      const confirmed = await bookingStep(tx, origin, booking, 'confirm');
      await advanceBooking(tx, origin, confirmed.booking);
    });
    return readBooking(ctx, booking.id, query);
  },
});
