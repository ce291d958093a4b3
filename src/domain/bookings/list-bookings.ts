import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { BookingState } from '../../generated/prisma/enums.ts';
import { defineOperation } from '../shared/operation.ts';
import { createdFilters, createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { id, timestamp } from '../shared/validation.ts';

export const listBookings = defineOperation({
  name: 'bookings',
  summary: 'List bookings',
  description: 'Bookings, newest first, filtered by state, vehicle, customer, start time (start_at[gte], start_at[lt]) or creation time (created[gte], created[lt]).',
  access: { permission: 'bookings:read' },
  args: z.object({
    state: z.enum(Object.values(BookingState) as [BookingState, ...BookingState[]]).meta({ id: 'BookingState' }).nullish().meta({ description: 'Only bookings in this state.' }),
    vehicleId: id('Only the bookings of this vehicle (veh_...).').nullish(),
    customerId: id('Only the bookings of this customer (cus_...).').nullish(),
    startAtGte: timestamp('Only bookings starting at or after this time.').nullish(),
    startAtLt: timestamp('Only bookings starting before this time.').nullish(),
    ...createdFilters,
  }),
  errors: [],
  example: { state: 'confirmed', vehicleId: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x', customerId: 'cus_01jd3m4k5n6p7q8r9s0t1v2w3x', startAtGte: '2027-03-01T00:00:00Z', startAtLt: '2027-04-01T00:00:00Z' },
  async run(ctx, args, { page, query }) {
    const p = pageQuery(page ?? {});
    const startAt = { ...(args.startAtGte ? { gte: args.startAtGte } : {}), ...(args.startAtLt ? { lt: args.startAtLt } : {}) };
    const where: Prisma.BookingWhereInput = {
      ...(args.state ? { state: args.state } : {}),
      ...(args.vehicleId ? { vehicleId: args.vehicleId } : {}),
      ...(args.customerId ? { customerId: args.customerId } : {}),
      ...(Object.keys(startAt).length ? { startAt } : {}),
      ...createdWhere(args),
      ...p.where,
    };
    return toPage(await ctx.db.booking.findMany({ ...query, where, orderBy: p.orderBy, take: p.take }), p);
  },
});
