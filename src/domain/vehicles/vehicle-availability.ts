import { z } from 'zod';
import { blockingBookingsOverlapping } from '../bookings/booking-overlap.ts';
import { validationError } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id, timestamp } from '../shared/validation.ts';

const DAY_MS = 86_400_000;
export const DEFAULT_WINDOW_DAYS = 90;
const MAX_WINDOW_DAYS = 366;
const HOLD_STATES = new Set(['pending_payment', 'checkout_started']);

export type BusyReason = 'booking' | 'hold';

export const getVehicleAvailability = defineOperation({
  name: 'vehicleAvailability',
  summary: "Read a vehicle's availability",
  description: `The periods in a window (start_at to end_at; by default now to ${DEFAULT_WINDOW_DAYS} days ahead, at most ${MAX_WINDOW_DAYS} days) when the vehicle is busy, oldest first: each with its own start and end (which may reach outside the window) and why: booking (a booking holds it) or hold (an unpaid booking holds it until its hold expires). No booking ids and no customer data: publishable keys may call it.`,
  access: { permission: 'vehicles:read', publishable: true },
  args: z.object({
    vehicleId: id('The vehicle (veh_...).'),
    startAt: timestamp('Start of the window; default now.').nullish(),
    endAt: timestamp(`End of the window; default ${DEFAULT_WINDOW_DAYS} days after its start.`).nullish(),
  }),
  errors: [],
  example: { vehicleId: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x', startAt: '2027-03-01T00:00:00Z', endAt: '2027-04-01T00:00:00Z' },
  async run(ctx, args) {
    const now = ctx.now();
    const startAt = args.startAt ?? now;
    const endAt = args.endAt ?? new Date(startAt.getTime() + DEFAULT_WINDOW_DAYS * DAY_MS);
    if (endAt <= startAt) throw validationError('end_at', 'Invalid end_at: must be after start_at.');
    // Times are answered in ISO 8601's four-digit years; a default end past 9999 has none.
    if (endAt.getUTCFullYear() > 9999) {
      const param = args.endAt ? 'end_at' : 'start_at'; // a default end comes from start_at
      throw validationError(param, `Invalid ${param}: the window must end by the year 9999.`);
    }
    if (endAt.getTime() - startAt.getTime() > MAX_WINDOW_DAYS * DAY_MS) throw validationError('end_at', `Invalid end_at: a window spans at most ${MAX_WINDOW_DAYS} days.`);
    const vehicle = await found(ctx.db.vehicle.findUnique({ where: { id: args.vehicleId }, select: { id: true, livemode: true } }), 'vehicle', args.vehicleId);
    // Bookings of one vehicle never overlap, so a window of at most a year holds a bounded number.
    const rows = await ctx.db.booking.findMany({
      where: { vehicleId: vehicle.id, ...blockingBookingsOverlapping({ startAt, endAt }, now) },
      select: { startAt: true, endAt: true, state: true },
      orderBy: { startAt: 'asc' },
    });
    return {
      vehicleId: vehicle.id,
      livemode: vehicle.livemode,
      startAt,
      endAt,
      busyPeriods: rows.map((b) => ({ startAt: b.startAt, endAt: b.endAt, reason: (HOLD_STATES.has(b.state) ? 'hold' : 'booking') as BusyReason })),
    };
  },
});

export type VehicleAvailability = Awaited<ReturnType<typeof getVehicleAvailability.run>>;
