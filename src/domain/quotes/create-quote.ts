import type { Vehicle } from '../../generated/prisma/client.ts';
import { CommonErrors, validationError } from '../shared/common.errors.ts';
import { pricingView } from '../vehicles/pricing-input.ts';
import { z } from 'zod';
import { blockingBookingsOverlapping } from '../bookings/booking-overlap.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation } from '../shared/operation.ts';
import { id, newMetadata } from '../shared/validation.ts';
import { assertNotInPast, checkRentalPeriod, rentalPeriodFields } from '../vehicles/rental-period.ts';
import { VehicleErrors } from '../vehicles/vehicle.errors.ts';
import { priceOrReject, pricingTimeZone } from './price-vehicle.ts';
import { assertBookable } from '../vehicles/vehicle-state.ts';

const createQuoteInput = z
  .object({
    vehicleId: id('The vehicle to price (veh_...).'),
    ...rentalPeriodFields,
    unlimitedMiles: z.boolean().default(false).meta({ description: 'Price unlimited miles (only where the vehicle offers it).' }),
    deliveryOption: z.string().trim().min(1).max(100).nullish().meta({ description: "The name of one of the vehicle's delivery options; its fee is added to the total." }),
    metadata: newMetadata,
  })
  .superRefine((q, ctx) => checkRentalPeriod(q, ctx))
  .meta({ id: 'CreateQuoteInput' });

/** The fee of the delivery option named (0 without one); an unknown name is 422. */
function chosenDeliveryFee(vehicle: Vehicle, name: string | null | undefined): number {
  if (!name) return 0;
  const options = pricingView(vehicle).deliveryOptions;
  const option = options.find((o) => o.name === name);
  if (!option) {
    const offered = options.map((o) => `'${o.name}'`).join(', ') || 'none';
    throw validationError('delivery_option', `Invalid delivery_option: the vehicle offers ${offered}.`);
  }
  return option.feeCents;
}

export const createQuote = defineOperation({
  name: 'createQuote',
  summary: 'Create a rental quote',
  description:
    'Prices a vehicle for a period: days (rounded up), the price of each day and the rule that set it (day_rates: seasonal, weekend or base; rental_cents is their sum), unlimited-miles fee, the fee of a chosen delivery option, deposit (held apart, not in the total), included miles and whether the vehicle is free. A booking made from the quote before expires_at keeps its price. Publishable keys may call it.',
  access: { permission: 'quotes:write', publishable: true },
  args: z.object({ input: createQuoteInput }),
  errors: [CommonErrors.resourceMissing, VehicleErrors.archived],
  example: { input: { vehicleId: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x', startAt: '2027-03-01T10:00:00Z', endAt: '2027-03-04T10:00:00Z', unlimitedMiles: true } },
  async run(ctx, { input }, { query }) {
    assertNotInPast(ctx, input.startAt);
    const vehicle = await found(ctx.db.vehicle.findUnique({ where: { id: input.vehicleId } }), 'vehicle', input.vehicleId, 'vehicle_id');
    assertBookable(vehicle, 'vehicle_id');
    const deliveryFeeCents = chosenDeliveryFee(vehicle, input.deliveryOption);
    const price = priceOrReject(vehicle, input, input.unlimitedMiles, { timeZone: await pricingTimeZone(ctx), deliveryFeeCents });
    const now = ctx.now();
    const conflicting = await ctx.db.booking.count({ where: { vehicleId: vehicle.id, ...blockingBookingsOverlapping(input, now) } });
    return ctx.db.quote.create({
      ...query,
      data: {
        id: newId('quote'),
        ...ctx.tenant,
        vehicleId: vehicle.id,
        startAt: input.startAt,
        endAt: input.endAt,
        unlimitedMiles: input.unlimitedMiles,
        ...price,
        deliveryOption: input.deliveryOption ?? null,
        available: conflicting === 0,
        expiresAt: new Date(now.getTime() + ctx.config.quoteTtlMinutes * 60_000),
        metadata: input.metadata,
      },
    });
  },
});
