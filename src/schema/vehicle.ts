import { builder } from '../builder.ts';
import { VEHICLE_FIELDS } from '../domain/vehicles/vehicle.fields.ts';
import { createVehicle } from '../domain/vehicles/create-vehicle.ts';
import { getVehicle } from '../domain/vehicles/get-vehicle.ts';
import { listVehicles } from '../domain/vehicles/list-vehicles.ts';
import { searchAvailability } from '../domain/vehicles/search-availability.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

export const Vehicle = builder.prismaObject('Vehicle', {
  description: 'A rentable vehicle with its pricing configuration.',
  fields: (t) => ({ ...(exposePublicFields(t, VEHICLE_FIELDS, enums) as {}) }),
});

const vehicles = operationField(listVehicles);
const vehicle = operationField(getVehicle);
const availability = operationField(searchAvailability);
const create = operationField(createVehicle);

builder.queryFields((t) => ({
  vehicles: vehicles.connection(t, Vehicle),
  vehicle: vehicle.prisma(t, 'Vehicle'),
  availability: availability.connection(t, Vehicle),
}));

builder.mutationFields((t) => ({
  createVehicle: create.prisma(t, 'Vehicle'),
}));
