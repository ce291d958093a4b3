import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { found } from '../shared/found.ts';
import { answersAs, defineOperation } from '../shared/operation.ts';
import { id, money } from '../shared/validation.ts';
import { deliveryOptionsInput, pricingView, seasonalRatesInput, storedDeliveryOptions, storedSeasonalRates, weekdayName } from './pricing-input.ts';
import { lockVehicle } from './vehicle-lock.ts';
import { presentVehicle } from './vehicle-state.ts';

const vehicleId = id('The vehicle (veh_...).');

const PRECEDENCE = 'Each rental day is priced by the first rule that applies to its date (in the business time zone): a seasonal rate whose range holds it, then the weekend rate on a weekend day, then the daily rate.';

export const getVehiclePricing = defineOperation({
  name: 'vehiclePricing',
  summary: "Read a vehicle's pricing",
  description: `The vehicle's pricing rules: daily rate, weekend rate and weekend days, seasonal rates, unlimited-miles price, deposit, included miles, extra-mile fee and delivery options with their fees. ${PRECEDENCE}`,
  access: { permission: 'vehicles:read' },
  args: z.object({ vehicleId }),
  errors: [],
  example: { vehicleId: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: async (ctx, args) => pricingView(await found(ctx.db.vehicle.findUnique({ where: { id: args.vehicleId } }), 'vehicle', args.vehicleId)),
});

const updatePricingInput = z
  .object({
    dailyRateCents: money('The base price of a rental day.').refine((v) => v > 0, 'must be positive').optional(),
    weekendRateCents: money('Price of a weekend day; null: weekend days cost the daily rate.').refine((v) => v > 0, 'must be positive').nullish(),
    weekendDays: z.array(weekdayName).max(7).optional().meta({ description: 'Days priced at the weekend rate (default saturday and sunday).' }),
    seasonalRates: seasonalRatesInput.optional(),
    unlimitedMilesDailyCents: money('Daily price of unlimited miles; null stops offering it.').nullish(),
    deliveryOptions: deliveryOptionsInput.optional(),
  })
  .meta({ id: 'UpdateVehiclePricingInput', description: 'Only the fields sent change; null clears an optional rate; lists replace the current ones.' });

export const updateVehiclePricing = defineOperation({
  name: 'updateVehiclePricing',
  summary: "Update a vehicle's pricing",
  description: `Changes the pricing rules sent and emits vehicle.updated. ${PRECEDENCE} Existing bookings and unexpired quotes keep their prices.`,
  access: { permission: 'vehicles:write' },
  args: z.object({ vehicleId, input: updatePricingInput }),
  errors: [],
  example: {
    vehicleId: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x',
    input: {
      dailyRateCents: 4900,
      weekendRateCents: 6900,
      weekendDays: ['saturday', 'sunday'],
      seasonalRates: [{ name: 'Summer', startDate: '2027-06-15', endDate: '2027-08-31', dailyRateCents: 8900 }],
      deliveryOptions: [{ name: 'Airport delivery', feeCents: 3500 }],
    },
  },
  replay: answersAs(getVehiclePricing),
  async run(ctx, args) {
    const { seasonalRates, deliveryOptions, weekendDays, ...rates } = args.input;
    const changes: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rates)) if (value !== undefined) changes[key] = value;
    if (weekendDays !== undefined) changes.weekendDays = [...new Set(weekendDays)];
    if (seasonalRates !== undefined) changes.seasonalRates = storedSeasonalRates(seasonalRates);
    if (deliveryOptions !== undefined) changes.deliveryOptions = storedDeliveryOptions(deliveryOptions);
    const origin = originOf(ctx);
    const vehicle = await ctx.db.$transaction(async (tx) => {
      const locked = await lockVehicle(tx, ctx, args.vehicleId);
      if (Object.keys(changes).length === 0) return locked;
      const updated = await tx.vehicle.update({ where: { id: locked.id }, data: changes as Prisma.VehicleUpdateInput });
      await recordEvent(tx, origin, { type: 'vehicle.updated', object: presentVehicle(updated) });
      return updated;
    });
    return pricingView(vehicle);
  },
});
