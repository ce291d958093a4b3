import { z } from 'zod';
import { blockingBookingsOverlapping } from '../bookings/booking-overlap.ts';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { checkRentalPeriod, rentalPeriodFields } from './rental-period.ts';

export const searchAvailability = defineOperation({
  name: 'availability',
  summary: 'Search available vehicles',
  description: 'Active vehicles with no booking holding them during any part of the period. Publishable keys may call it.',
  access: { permission: 'vehicles:read', publishable: true },
  args: z.object(rentalPeriodFields).superRefine((p, ctx) => checkRentalPeriod(p, ctx)),
  errors: [],
  example: { startAt: '2027-03-01T10:00:00Z', endAt: '2027-03-04T10:00:00Z' },
  async run(ctx, period, { page, query }) {
    const p = pageQuery(page ?? {});
    const rows = await ctx.db.vehicle.findMany({
      ...query,
      where: { status: 'active', ...p.where, bookings: { none: blockingBookingsOverlapping(period, ctx.now()) } },
      orderBy: p.orderBy,
      take: p.take,
    });
    return toPage(rows, p);
  },
});
