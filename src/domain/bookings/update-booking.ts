import { z } from 'zod';
import type { Booking } from '../../generated/prisma/client.ts';
import { isExclusionViolation } from '../../db/database-errors.ts';
import { originOf } from '../events/event.service.ts';
import { priceOrReject } from '../quotes/price-vehicle.ts';
import { CommonErrors, validationError } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { defineOperation, type PrismaQuery } from '../shared/operation.ts';
import { id, mergeMetadata, metadata } from '../shared/validation.ts';
import { assertNotInPast, rentalPeriodFields } from '../vehicles/rental-period.ts';
import { VehicleErrors } from '../vehicles/vehicle.errors.ts';
import { expireHolds } from './booking-holds.ts';
import { periodUnavailable, vehiclePeriodTaken } from './booking-overlap.ts';
import { bookingMachine } from './booking-state.ts';
import { applyBookingAction } from './booking-transitions.ts';
import { BookingErrors } from './booking.errors.ts';
import { readBooking } from './get-booking.ts';
import { assertBookable } from '../vehicles/vehicle-state.ts';

const MAX_RENTAL_MS = 366 * 86_400_000;

export const updateBookingInput = z
  .object({
    startAt: rentalPeriodFields.startAt.optional(),
    endAt: rentalPeriodFields.endAt.optional(),
    unlimitedMiles: z.boolean().optional().meta({ description: 'Unlimited miles (only where the vehicle offers it).' }),
    metadata: metadata.nullish(),
  })
  .meta({ id: 'UpdateBookingInput' });

type UpdateValues = z.output<typeof updateBookingInput>;

/** The period and mileage option after the update, checked as creation checks them. */
function newPeriod(ctx: DomainContext, booking: Booking, input: UpdateValues) {
  const startAt = input.startAt ?? booking.startAt;
  const endAt = input.endAt ?? booking.endAt;
  if (input.startAt) assertNotInPast(ctx, startAt);
  const param = input.endAt ? 'end_at' : 'start_at';
  if (endAt <= startAt) throw validationError(param, `Invalid ${param}: end_at must be after start_at.`);
  if (endAt.getTime() - startAt.getTime() > MAX_RENTAL_MS) throw validationError(param, `Invalid ${param}: a rental lasts at most 366 days.`);
  return { startAt, endAt, unlimitedMiles: input.unlimitedMiles ?? booking.unlimitedMiles };
}

/**
 * Change what may still change of a booking (the contract's partial update): its metadata
 * until it ended; its period and mileage option while nothing was paid, re-priced as a new
 * booking would be and held under the database's exclusion constraint.
 */
export async function updateBooking(ctx: DomainContext, bookingId: string, input: UpdateValues, query: PrismaQuery = {}) {
  const booking = await readBooking(ctx, bookingId);
  const changesPeriod = input.startAt !== undefined || input.endAt !== undefined || input.unlimitedMiles !== undefined;
  const nextMetadata = input.metadata === undefined ? undefined : input.metadata === null ? {} : mergeMetadata(booking.metadata as Record<string, string>, input.metadata);
  const origin = originOf(ctx);
  const answer = () => ctx.db.booking.findUniqueOrThrow({ ...(query as object), where: { id: booking.id } });
  if (!changesPeriod) {
    if (nextMetadata === undefined) return answer();
    await ctx.db.$transaction((tx) => applyBookingAction(tx, origin, booking, 'update_metadata', { metadata: nextMetadata }));
    return answer();
  }

  bookingMachine.check(booking, 'change_period');
  const period = newPeriod(ctx, booking, input);
  const vehicle = await ctx.db.vehicle.findUniqueOrThrow({ where: { id: booking.vehicleId } });
  // A new period is a new booking of the vehicle, refused as creation refuses it. (An unpaid
  // booking whose period has passed no longer holds its vehicle, which may be archived meanwhile.)
  assertBookable(vehicle);
  const price = priceOrReject(vehicle, period, period.unlimitedMiles);
  // Holds that ran out must not block the new period (as at creation).
  await expireHolds(ctx.db, ctx.now(), { vehicleId: vehicle.id });
  try {
    await ctx.db.$transaction(async (tx) => {
      if (await vehiclePeriodTaken(tx, vehicle.id, period, ctx.now(), booking.id)) throw periodUnavailable(vehicle.id, period);
      // The booking no longer follows its quote's price once its period or mileage option changes.
      const changes = { ...period, ...price, quoteId: null, ...(nextMetadata !== undefined ? { metadata: nextMetadata } : {}) };
      const updated = await applyBookingAction(tx, origin, booking, 'change_period', changes);
      const payment = await tx.payment.findUnique({ where: { bookingId: booking.id } });
      if (payment && payment.state !== 'requires_payment' && payment.state !== 'failed') {
        throw CommonErrors.invalidStateTransition('payment', payment.state, `The payment is '${payment.state}'; the price cannot change now.`);
      }
      if (payment) await tx.payment.update({ where: { id: payment.id }, data: { amountCents: price.totalCents, currency: price.currency } });
      await tx.deposit.updateMany({
        where: { bookingId: booking.id, state: { in: ['required', 'not_required'] } },
        data: { amountCents: price.depositCents, currency: price.currency },
      });
      return updated;
    });
  } catch (err) {
    if (isExclusionViolation(err)) throw periodUnavailable(vehicle.id, period);
    throw err;
  }
  return answer();
}

export const updateBookingOperation = defineOperation({
  name: 'updateBooking',
  summary: 'Update supported booking fields',
  description:
    'Changes only the fields sent. `metadata` may change until the booking has ended (completed, canceled, refunded); a key set to "" is removed, and null removes them all. `start_at`, `end_at` and `unlimited_miles` may change while nothing was paid (pending_payment): the booking is re-priced exactly as a new booking would be (its price snapshot, payment amount and deposit follow) and the new period is held under the same rule as creation, so an overlapping booking of the vehicle answers 409 vehicle_unavailable, also under concurrency, and a vehicle archived meanwhile 409 vehicle_archived, as at creation. Once a checkout is under way (checkout_started, payment_pending) the period is fixed (409 invalid_state_transition); a paid booking is extended with POST /v1/bookings/{booking_id}/extend instead. Emits booking.updated.',
  access: { permission: 'bookings:write' },
  args: z.object({ id: id('The booking (bk_...).'), input: updateBookingInput.nullish() }),
  errors: [CommonErrors.invalidStateTransition, BookingErrors.vehicleUnavailable, VehicleErrors.archived],
  example: { id: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { endAt: '2027-03-05T10:00:00Z', metadata: { order_id: '1002' } } },
  run: (ctx, args, { query }) => updateBooking(ctx, args.id, args.input ?? {}, query),
});
