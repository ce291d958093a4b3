import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { loadSettings } from '../business/business-settings.ts';
import type { DomainContext } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation, type PrismaQuery } from '../shared/operation.ts';
import { currency, money, newMetadata } from '../shared/validation.ts';
import { deliveryOptionsInput, MAX_DELIVERY_OPTIONS, storedDeliveryOptions } from './pricing-input.ts';

export const createVehicleInput = z
  .object({
    name: z.string().trim().min(1).max(200).meta({ description: 'Display name, e.g. "Toyota Corolla 2024".' }),
    make: z.string().max(100).nullish().meta({ description: 'Manufacturer, e.g. Toyota.' }),
    model: z.string().max(100).nullish().meta({ description: 'Model, e.g. Corolla.' }),
    year: z.number().int().min(1900).max(2100).nullish().meta({ description: 'Model year.' }),
    currency: currency.nullish().meta({ description: "ISO 4217 code, lower case; defaults to the business's currency." }),
    dailyRateCents: money('Price of one rental day, in minor units.').refine((v) => v > 0, 'must be positive'),
    depositCents: money('Security deposit held apart from the rental total.').default(0),
    includedMiles: z.number().int().min(0).max(100_000).nullish().meta({ description: 'Miles included per rental day; defaults to the business setting.' }),
    extraMileFeeCents: money('Fee per mile over the included miles.').default(0),
    unlimitedMilesDailyCents: money('Daily price of unlimited miles; absent when not offered.').nullish(),
    location: z.record(z.string(), z.unknown()).nullish().meta({ description: 'Where the vehicle is picked up, e.g. {"city": "Austin"}.' }),
    deliveryOptions: deliveryOptionsInput.default([]).meta({ description: `How the vehicle reaches the customer, with fees (none by default; at most ${MAX_DELIVERY_OPTIONS}, names unique).` }),
    accessMethod: z.enum(['in_person', 'lockbox', 'keyless', 'remote_unlock']).default('in_person').meta({ description: 'How the customer gets the keys (in_person by default).' }),
    minimumAge: z.number().int().min(16).max(99).default(21).meta({ description: 'Youngest age a driver may be (21 by default).' }),
    photos: z.array(z.object({ slot: z.string().max(40), url: z.string().url().max(2000) }).meta({ id: 'VehiclePhotoInput' })).max(50).default([]).meta({ description: 'Photos by slot (front, interior, ...), as https URLs.' }),
    features: z.array(z.string().min(1).max(100)).max(50).default([]).meta({ description: 'Features shown to customers, e.g. bluetooth, child_seat.' }),
    metadata: newMetadata,
  })
  .meta({ id: 'CreateVehicleInput' });

export type VehicleValues = z.output<typeof createVehicleInput>;

/** Insert a vehicle of the caller's fleet (also the sandbox's stand-in vehicle). */
export async function insertVehicle(ctx: DomainContext, input: VehicleValues, query: PrismaQuery = {}) {
  const { settings, currency: businessCurrency } = await loadSettings(ctx);
  return ctx.db.vehicle.create({
    ...query,
    data: {
      id: newId('vehicle'),
      ...ctx.tenant,
      ...input,
      make: input.make ?? null,
      model: input.model ?? null,
      year: input.year ?? null,
      currency: input.currency ?? businessCurrency,
      includedMiles: input.includedMiles ?? settings.included_mileage_defaults.miles_per_day,
      unlimitedMilesDailyCents: input.unlimitedMilesDailyCents ?? null,
      location: (input.location ?? undefined) as Prisma.InputJsonValue | undefined,
      deliveryOptions: storedDeliveryOptions(input.deliveryOptions),
      photos: input.photos as Prisma.InputJsonValue,
    },
  });
}

export const createVehicle = defineOperation({
  name: 'createVehicle',
  summary: 'Create a vehicle',
  description: 'Adds a vehicle to the fleet of the key\'s environment, with its pricing.',
  access: { permission: 'vehicles:write' },
  args: z.object({ input: createVehicleInput }),
  errors: [],
  example: { input: { name: 'Toyota Corolla 2024', dailyRateCents: 4900, depositCents: 25000, includedMiles: 200, extraMileFeeCents: 35, unlimitedMilesDailyCents: 1500 } },
  run: (ctx, { input }, { query }) => insertVehicle(ctx, input, query),
});
