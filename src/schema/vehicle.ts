import { builder } from '../builder.ts';
import { VEHICLE_FIELDS } from '../domain/vehicles/vehicle.fields.ts';
import { archiveVehicle } from '../domain/vehicles/archive-vehicle.ts';
import { createVehicle } from '../domain/vehicles/create-vehicle.ts';
import { getVehicle } from '../domain/vehicles/get-vehicle.ts';
import { listVehicles } from '../domain/vehicles/list-vehicles.ts';
import type { PricingView } from '../domain/vehicles/pricing-input.ts';
import { searchAvailability } from '../domain/vehicles/search-availability.ts';
import { updateVehicle } from '../domain/vehicles/update-vehicle.ts';
import { getVehicleAvailability, type VehicleAvailability } from '../domain/vehicles/vehicle-availability.ts';
import { getVehiclePricing, updateVehiclePricing } from '../domain/vehicles/vehicle-pricing.ts';
import { vehicleMachine } from '../domain/vehicles/vehicle-state.ts';
import { enums, enumType } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';
import { ROW_KEY } from './select-mode.ts';

// Select mode (see src/schema/select-mode.ts): a read loads the columns its selection asks for.
export const Vehicle = builder.prismaObject('Vehicle', {
  description: 'A rentable vehicle with its pricing configuration.',
  select: ROW_KEY,
  fields: (t) => ({
    ...(exposePublicFields(t, VEHICLE_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.VehicleStatus], description: 'Statuses the vehicle can move to now.', select: { status: true }, resolve: (v) => vehicleMachine.nextStates({ state: v.status }) }),
  }),
});

const BusyReason = enumType('BusyReason', ['booking', 'hold'], 'booking: a booking holds the vehicle; hold: an unpaid booking holds it until its hold expires.');

const BusyPeriod = builder.objectRef<VehicleAvailability['busyPeriods'][number]>('BusyPeriod').implement({
  description: 'A period when the vehicle is busy (no booking id, no customer data).',
  fields: (t) => ({
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    reason: t.field({ type: BusyReason, resolve: (p) => p.reason }),
  }),
});

const VehicleAvailabilityRef = builder.objectRef<VehicleAvailability>('VehicleAvailability').implement({
  description: "The busy periods of one vehicle in a window, oldest first.",
  fields: (t) => ({
    vehicleId: t.exposeID('vehicleId'),
    livemode: t.exposeBoolean('livemode'),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    busyPeriods: t.field({ type: [BusyPeriod], resolve: (a) => a.busyPeriods }),
  }),
});

const SeasonalRate = builder.objectRef<PricingView['seasonalRates'][number]>('SeasonalRate').implement({
  description: 'A date range (inclusive, in the business time zone) with its own daily rate.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true }),
    startDate: t.exposeString('startDate', { description: 'YYYY-MM-DD.' }),
    endDate: t.exposeString('endDate', { description: 'YYYY-MM-DD, inclusive.' }),
    dailyRateCents: t.exposeInt('dailyRateCents'),
  }),
});

const DeliveryOption = builder.objectRef<PricingView['deliveryOptions'][number]>('DeliveryOption').implement({
  description: 'A way the vehicle reaches the customer, with its fee.',
  fields: (t) => ({
    name: t.exposeString('name'),
    feeCents: t.exposeInt('feeCents'),
    description: t.exposeString('description', { nullable: true }),
  }),
});

const VehiclePricingRef = builder.objectRef<PricingView>('VehiclePricing').implement({
  description:
    "A vehicle's pricing rules. Each rental day is priced by the first rule that applies to its date: a seasonal rate, then the weekend rate on a weekend day, then the daily rate.",
  fields: (t) => ({
    vehicleId: t.exposeID('vehicleId'),
    livemode: t.exposeBoolean('livemode'),
    currency: t.exposeString('currency'),
    dailyRateCents: t.exposeInt('dailyRateCents', { description: 'The base rate of a day.' }),
    weekendRateCents: t.exposeInt('weekendRateCents', { nullable: true, description: 'Rate of a weekend day; null: the daily rate.' }),
    weekendDays: t.exposeStringList('weekendDays'),
    seasonalRates: t.field({ type: [SeasonalRate], resolve: (p) => p.seasonalRates }),
    unlimitedMilesDailyCents: t.exposeInt('unlimitedMilesDailyCents', { nullable: true }),
    depositCents: t.exposeInt('depositCents'),
    includedMiles: t.exposeInt('includedMiles', { description: 'Per rental day.' }),
    extraMileFeeCents: t.exposeInt('extraMileFeeCents'),
    deliveryOptions: t.field({ type: [DeliveryOption], resolve: (p) => p.deliveryOptions }),
  }),
});

const vehicles = operationField(listVehicles);
const vehicle = operationField(getVehicle);
const availability = operationField(searchAvailability);
const create = operationField(createVehicle);
const update = operationField(updateVehicle);
const archive = operationField(archiveVehicle);
const vehicleAvailability = operationField(getVehicleAvailability);
const pricing = operationField(getVehiclePricing);
const updatePricing = operationField(updateVehiclePricing);

builder.queryFields((t) => ({
  vehicles: vehicles.connection(t, Vehicle),
  vehicle: vehicle.prisma(t, 'Vehicle'),
  availability: availability.connection(t, Vehicle),
  vehicleAvailability: vehicleAvailability.plain(t, VehicleAvailabilityRef),
  vehiclePricing: pricing.plain(t, VehiclePricingRef),
}));

builder.mutationFields((t) => ({
  createVehicle: create.prisma(t, 'Vehicle'),
  updateVehicle: update.prisma(t, 'Vehicle'),
  archiveVehicle: archive.prisma(t, 'Vehicle'),
  updateVehiclePricing: updatePricing.plain(t, VehiclePricingRef),
}));
