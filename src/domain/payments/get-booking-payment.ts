import { z } from 'zod';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';

export const getBookingPayment = defineOperation({
  name: 'bookingPayment',
  summary: 'Retrieve payment state',
  description: "The booking's rental payment: amount, amount refunded, state and the states it can move to next.",
  access: { permission: 'payments:read' },
  args: z.object({ bookingId: id('The booking (bk_...).') }),
  errors: [],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.payment.findUnique({ ...query, where: { bookingId: args.bookingId } }), 'booking', args.bookingId),
});
