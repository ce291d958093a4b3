import { z } from 'zod';
import { assertBookingVisible } from '../bookings/get-booking.ts';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';

export const listBookingTransactions = defineOperation({
  name: 'bookingTransactions',
  summary: 'List booking transactions',
  description:
    "Every movement of money on the booking, newest first: payment, refund, deposit_hold, deposit_capture, deposit_release, charge and extension (the extra time of an extended booking), each with amount_cents and status. They reconcile exactly with the payment's, the deposit's and the charges' amounts, and the booking's total_cents is its payment plus its succeeded extensions. A refund names what it gives back: charge_id a post-trip charge, refunded_transaction_id an extension (never more than that extension charged); the others add up to the payment's amount_refunded_cents.",
  access: { permission: 'payments:read' },
  args: z.object({ bookingId: id('The booking (bk_...).') }),
  errors: [],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { page, query }) {
    await assertBookingVisible(ctx, args.bookingId);
    const p = pageQuery(page ?? {});
    const rows = await ctx.db.transaction.findMany({ ...query, where: { bookingId: args.bookingId, ...p.where }, orderBy: p.orderBy, take: p.take });
    return toPage(rows, p);
  },
});
