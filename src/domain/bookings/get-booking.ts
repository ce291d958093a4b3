import { z } from 'zod';
import type { Booking } from '../../generated/prisma/client.ts';
import type { DomainContext } from '../shared/context.ts';
import { found } from '../shared/found.ts';
import { defineOperation, type PrismaQuery } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { expireHolds, holdLapsed } from './booking-holds.ts';

/** The caller's booking, or 404. A hold that ran out before the sweeper came by is expired first, so the answer shows it. */
export async function readBooking(ctx: DomainContext, bookingId: string, query: PrismaQuery = {}, param?: string): Promise<Booking> {
  const booking = (await found(ctx.db.booking.findUnique({ ...query, where: { id: bookingId } }), 'booking', bookingId, param)) as Booking;
  if (!holdLapsed(booking, ctx.now())) return booking;
  await expireHolds(ctx.db, ctx.now(), { id: bookingId });
  return (await found(ctx.db.booking.findUnique({ ...query, where: { id: bookingId } }), 'booking', bookingId, param)) as Booking;
}

/** The booking must be the caller's (same business and environment), or it does not exist. */
export async function assertBookingVisible(ctx: DomainContext, bookingId: string, param?: string): Promise<void> {
  await found(ctx.db.booking.findUnique({ where: { id: bookingId }, select: { id: true } }), 'booking', bookingId, param);
}

export const getBooking = defineOperation({
  name: 'booking',
  summary: 'Retrieve a booking',
  description:
    "The booking with its price snapshot, readiness gates, lifecycle state and the states it can move to next (next_states). A publishable key may read the one booking whose client_secret it sends (X-Client-Secret header or client_secret query parameter: the browser booking of the embedded components); any other answers 404.",
  access: { permission: 'bookings:read', browser: { ownBooking: 'id' } },
  args: z.object({ id: id('The booking (bk_...).') }),
  errors: [],
  example: { id: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => readBooking(ctx, args.id, query),
});
