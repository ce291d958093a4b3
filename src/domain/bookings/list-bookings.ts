import { z } from 'zod';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';

export const listBookings = defineOperation({
  name: 'bookings',
  summary: 'List bookings',
  description: 'Bookings, newest first; optionally those of one customer.',
  access: { permission: 'bookings:read' },
  args: z.object({ customerId: id('Only the bookings of this customer (cus_...).').nullish() }),
  errors: [],
  async run(ctx, args, { page, query }) {
    const p = pageQuery(page ?? {});
    const rows = await ctx.db.booking.findMany({ ...query, where: { ...(args.customerId ? { customerId: args.customerId } : {}), ...p.where }, orderBy: p.orderBy, take: p.take });
    return toPage(rows, p);
  },
});
