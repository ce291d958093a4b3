import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { lockVehicle } from './vehicle-lock.ts';
import { VehicleErrors } from './vehicle.errors.ts';
import { presentVehicle, vehicleMachine } from './vehicle-state.ts';

/**
 * Bookings that still need the vehicle: not canceled, refunded or completed, and either not
 * ended yet or with the vehicle still out (active, late). Holds that ran out do not count.
 */
export function bookingsHoldingVehicle(vehicleId: string, now: Date): Prisma.BookingWhereInput {
  return {
    vehicleId,
    state: { notIn: ['canceled', 'refunded', 'completed'] },
    OR: [{ endAt: { gt: now } }, { state: { in: ['active', 'late'] } }],
    NOT: { state: { in: ['pending_payment', 'checkout_started'] }, holdExpiresAt: { lte: now } },
  };
}

export const archiveVehicle = defineOperation({
  name: 'archiveVehicle',
  summary: 'Archive a vehicle',
  description:
    'Archives the vehicle (status archived, vehicle.archived): it leaves the fleet list and availability search, and new quotes and bookings of it answer 409 vehicle_archived. Its bookings and history stay readable. Refused with 409 vehicle_has_bookings while bookings still hold it (the error counts and names them); a booking being made at the same moment either is counted or fails. Archiving is final.',
  access: { permission: 'vehicles:write' },
  args: z.object({ id: id('The vehicle (veh_...).') }),
  errors: [VehicleErrors.stillBooked, CommonErrors.invalidStateTransition],
  example: { id: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { query }) {
    const current = await found(ctx.db.vehicle.findUnique({ where: { id: args.id }, select: { status: true } }), 'vehicle', args.id);
    vehicleMachine.check({ state: current.status }, 'archive');
    const origin = originOf(ctx);
    await ctx.db.$transaction(async (tx) => {
      const vehicle = await lockVehicle(tx, ctx, args.id);
      const rule = vehicleMachine.check({ state: vehicle.status }, 'archive');
      // Counted under the lock: a booking inserted meanwhile has committed (and is counted) or will fail.
      const where = bookingsHoldingVehicle(vehicle.id, ctx.now());
      const holding = await tx.booking.findMany({ where, select: { id: true }, orderBy: { startAt: 'asc' }, take: 10 });
      if (holding.length > 0) {
        const count = holding.length < 10 ? holding.length : await tx.booking.count({ where });
        throw VehicleErrors.stillBooked(vehicle.id, count, holding.map((b) => b.id));
      }
      // The request's clock (the sandbox's for a test key), as the utilization report counts the vehicle until then.
      const archived = await tx.vehicle.update({ where: { id: vehicle.id }, data: { status: rule.to, archivedAt: ctx.now() } });
      await recordEvent(tx, origin, { type: rule.event!, object: presentVehicle(archived) });
    });
    return ctx.db.vehicle.findUniqueOrThrow({ ...query, where: { id: args.id } });
  },
});
