import type { RestRoute } from '../route.ts';

/** Vehicles, availability, quotes. */
export const fleetRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/vehicles', field: 'Query.vehicles', stage: 'first_release' },
  { method: 'POST', path: '/v1/vehicles', field: 'Mutation.createVehicle', args: { input: 'body' }, status: 201, stage: 'later_scope' },
  { method: 'GET', path: '/v1/vehicles/{vehicle_id}', field: 'Query.vehicle', args: { id: 'path.vehicle_id' }, stage: 'first_release' },
  { method: 'POST', path: '/v1/vehicles/{vehicle_id}', field: 'Mutation.updateVehicle', args: { id: 'path.vehicle_id', input: 'body' }, stage: 'later_scope' },
  { method: 'DELETE', path: '/v1/vehicles/{vehicle_id}', field: 'Mutation.archiveVehicle', args: { id: 'path.vehicle_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/vehicles/{vehicle_id}/availability', field: 'Query.vehicleAvailability', args: { vehicleId: 'path.vehicle_id' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/vehicles/{vehicle_id}/pricing', field: 'Query.vehiclePricing', args: { vehicleId: 'path.vehicle_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/vehicles/{vehicle_id}/pricing', field: 'Mutation.updateVehiclePricing', args: { vehicleId: 'path.vehicle_id', input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/availability', field: 'Query.availability', stage: 'first_release' },
  { method: 'POST', path: '/v1/quotes', field: 'Mutation.createQuote', args: { input: 'body' }, status: 201, stage: 'first_release' },
  { method: 'GET', path: '/v1/quotes/{quote_id}', field: 'Query.quote', args: { id: 'path.quote_id' }, stage: 'later_scope' },
];
