import { z } from 'zod';
import { Prisma } from '../../generated/prisma/client.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { defineOperation } from '../shared/operation.ts';
import { id, mergeMetadata, metadata, money } from '../shared/validation.ts';
import { deliveryOptionsInput, storedDeliveryOptions } from './pricing-input.ts';
import { lockVehicle } from './vehicle-lock.ts';
import { presentVehicle } from './vehicle-state.ts';

export const updateVehicleInput = z
  .object({
    name: z.string().trim().min(1).max(200).optional().meta({ description: 'Display name.' }),
    make: z.string().max(100).nullish().meta({ description: 'Manufacturer; null clears it.' }),
    model: z.string().max(100).nullish().meta({ description: 'Model; null clears it.' }),
    year: z.number().int().min(1900).max(2100).nullish().meta({ description: 'Model year; null clears it.' }),
    dailyRateCents: money('Price of one rental day (the base rate), in minor units.').refine((v) => v > 0, 'must be positive').optional(),
    depositCents: money('Security deposit held apart from the rental total.').optional(),
    includedMiles: z.number().int().min(0).max(100_000).optional().meta({ description: 'Miles included per rental day.' }),
    extraMileFeeCents: money('Fee per mile over the included miles.').optional(),
    unlimitedMilesDailyCents: money('Daily price of unlimited miles; null stops offering it.').nullish(),
    location: z.record(z.string(), z.unknown()).nullish().meta({ description: 'Where the vehicle is picked up; null clears it.' }),
    deliveryOptions: deliveryOptionsInput.optional(),
    accessMethod: z.enum(['in_person', 'lockbox', 'keyless', 'remote_unlock']).optional().meta({ description: 'How the customer gets the keys.' }),
    minimumAge: z.number().int().min(16).max(99).optional().meta({ description: 'Youngest age a driver may be.' }),
    photos: z.array(z.object({ slot: z.string().max(40), url: z.string().url().max(2000) }).meta({ id: 'VehiclePhotoInput' })).max(50).optional().meta({ description: 'Photos by slot; they replace the current list.' }),
    features: z.array(z.string().min(1).max(100)).max(50).optional().meta({ description: 'Features shown to customers; they replace the current list.' }),
    metadata: metadata.nullish(),
  })
  .meta({ id: 'UpdateVehicleInput', description: 'Only the fields sent change; null clears an optional field; a metadata key set to "" is removed.' });

type UpdateValues = z.output<typeof updateVehicleInput>;

/** What an update writes: the fields sent, JSON lists in their stored form. */
function changesOf(input: UpdateValues, currentMetadata: Record<string, string>): Prisma.VehicleUpdateInput {
  const { deliveryOptions, location, metadata: metadataUpdate, ...plain } = input;
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(plain)) if (value !== undefined) changes[key] = value;
  if (deliveryOptions !== undefined) changes.deliveryOptions = storedDeliveryOptions(deliveryOptions);
  // A JSON column is cleared with the database's NULL, not a JSON null.
  if (location !== undefined) changes.location = location === null ? Prisma.DbNull : location;
  if (metadataUpdate) changes.metadata = mergeMetadata(currentMetadata, metadataUpdate);
  return changes as Prisma.VehicleUpdateInput;
}

export const updateVehicle = defineOperation({
  name: 'updateVehicle',
  summary: 'Update a vehicle',
  description:
    "Changes the fields sent (name, make, model, year, rates, deposit, miles, location, delivery options, access method, minimum age, photos, features, metadata) and emits vehicle.updated. Existing bookings keep the price they were made with; new quotes and bookings use the new figures. Archived vehicles may be updated too.",
  access: { permission: 'vehicles:write' },
  args: z.object({ id: id('The vehicle (veh_...).'), input: updateVehicleInput }),
  errors: [],
  example: { id: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { dailyRateCents: 5400, features: ['bluetooth', 'child_seat'], metadata: { color: 'blue', old_key: '' } } },
  async run(ctx, args, { query }) {
    const origin = originOf(ctx);
    await ctx.db.$transaction(async (tx) => {
      // Locked, so two concurrent metadata updates both land.
      const vehicle = await lockVehicle(tx, ctx, args.id);
      const changes = changesOf(args.input, vehicle.metadata as Record<string, string>);
      if (Object.keys(changes).length === 0) return;
      const updated = await tx.vehicle.update({ where: { id: vehicle.id }, data: changes });
      await recordEvent(tx, origin, { type: 'vehicle.updated', object: presentVehicle(updated) });
    });
    return ctx.db.vehicle.findUniqueOrThrow({ ...query, where: { id: args.id } });
  },
});
