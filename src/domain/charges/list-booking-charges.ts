import { z } from 'zod';
import { assertBookingVisible } from '../bookings/get-booking.ts';
import { defineOperation } from '../shared/operation.ts';
import { createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { chargeFilters, chargeWhere } from './charge-filters.ts';
import { id } from '../shared/validation.ts';

export const listBookingCharges = defineOperation({
  name: 'bookingCharges',
  summary: 'List charges for a booking',
  description: "The booking's post-trip charges (mileage, damage, fuel, ...), newest first.",
  access: { permission: 'charges:read' },
  args: z.object({ bookingId: id('The booking (bk_...).'), ...chargeFilters }),
  errors: [],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', state: 'pending', type: 'damage' },
  async run(ctx, args, { page, query }) {
    await assertBookingVisible(ctx, args.bookingId);
    const p = pageQuery(page ?? {});
    const rows = await ctx.db.charge.findMany({ ...query, where: { bookingId: args.bookingId, ...chargeWhere(args), ...createdWhere(args), ...p.where }, orderBy: p.orderBy, take: p.take });
    return toPage(rows, p);
  },
});
