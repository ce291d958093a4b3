import { builder } from '../builder.ts';
import { VEHICLE_FIELDS } from '../domain/vehicles/vehicle.fields.ts';
import { createVehicle, getVehicle, listVehicles, searchAvailability } from '../domain/vehicles/vehicle.service.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { nodeQuery, pageParams, toConnection } from './pagination.ts';

export const Vehicle = builder.prismaObject('Vehicle', {
  description: 'A rentable vehicle with its pricing configuration.',
  fields: (t) => ({ ...(exposePublicFields(t, VEHICLE_FIELDS, enums) as {}) }),
});

const CreateVehicleInput = builder.inputType('CreateVehicleInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    make: t.string(),
    model: t.string(),
    year: t.int(),
    currency: t.string(),
    dailyRateCents: t.int({ required: true }),
    depositCents: t.int(),
    includedMiles: t.int({ description: 'Miles included per rental day; defaults to the business setting.' }),
    extraMileFeeCents: t.int(),
    unlimitedMilesDailyCents: t.int(),
    location: t.field({ type: 'JSON' }),
    deliveryOptions: t.field({ type: 'JSON' }),
    accessMethod: t.string(),
    minimumAge: t.int(),
    photos: t.field({ type: 'JSON' }),
    features: t.stringList(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  vehicles: t.connection({
    type: Vehicle,
    description: 'Active vehicles of the fleet, newest first.',
    resolve: async (_root, args, ctx, info) => toConnection(await listVehicles(ctx.domain, pageParams(args), nodeQuery(ctx, info)), args),
  }),
  vehicle: t.prismaField({
    type: 'Vehicle',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getVehicle(ctx.domain, String(args.id), query),
  }),
  availability: t.connection({
    type: Vehicle,
    description: 'Vehicles free for the whole period.',
    args: { startAt: t.arg({ type: 'DateTime', required: true }), endAt: t.arg({ type: 'DateTime', required: true }) },
    resolve: async (_root, args, ctx, info) =>
      toConnection(await searchAvailability(ctx.domain, { ...pageParams(args), startAt: args.startAt, endAt: args.endAt }, nodeQuery(ctx, info)), args),
  }),
}));

builder.mutationFields((t) => ({
  createVehicle: t.prismaField({
    type: 'Vehicle',
    args: { input: t.arg({ type: CreateVehicleInput, required: true }) },
    resolve: (query, _root, args, ctx) => createVehicle(ctx.domain, args.input, query),
  }),
}));
