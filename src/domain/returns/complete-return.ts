import { CommonErrors } from '../shared/common.errors.ts';
import { z } from 'zod';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { defineOperation } from '../shared/operation.ts';
import { followReturn } from './return-record.ts';
import { id } from '../shared/validation.ts';

export const completeReturn = defineOperation({
  name: 'completeReturn',
  summary: 'Complete an eligible return',
  description: 'Closes a reviewed return: return_in_review → completed, emitting rental.completed; the return record is completed with it.',
  access: { permission: 'returns:write' },
  args: z.object({ bookingId: id('The booking (bk_...).') }),
  errors: [CommonErrors.invalidStateTransition],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    const origin = originOf(ctx);
    return ctx.db.$transaction(async (tx) => {
      const completed = await applyBookingAction(tx, origin, booking, 'complete_return', { completedAt: ctx.now() }, query as never);
      await followReturn(tx, origin, booking, 'complete', { completedAt: ctx.now() });
      return completed;
    });
  },
});
