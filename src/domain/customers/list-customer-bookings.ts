import { z } from 'zod';
import { BookingState } from '../../generated/prisma/enums.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { createdFilters, createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';

export const listCustomerBookings = defineOperation({
  name: 'customerBookings',
  summary: "List a customer's bookings",
  description: "The customer's bookings, newest first, filtered by state or creation time (created[gte], created[lt]).",
  access: { permission: 'bookings:read' },
  args: z.object({
    customerId: id('The customer (cus_...).'),
    state: z.enum(Object.values(BookingState) as [BookingState, ...BookingState[]]).meta({ id: 'BookingState' }).nullish().meta({ description: 'Only bookings in this state.' }),
    ...createdFilters,
  }),
  errors: [],
  example: { customerId: 'cus_01jd3m4k5n6p7q8r9s0t1v2w3x', state: 'confirmed' },
  async run(ctx, args, { page, query }) {
    await found(ctx.db.customer.findUnique({ where: { id: args.customerId }, select: { id: true } }), 'customer', args.customerId);
    const p = pageQuery(page ?? {});
    const where = { customerId: args.customerId, ...(args.state ? { state: args.state } : {}), ...createdWhere(args), ...p.where };
    return toPage(await ctx.db.booking.findMany({ ...query, where, orderBy: p.orderBy, take: p.take }), p);
  },
});
