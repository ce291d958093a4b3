import type { Vehicle } from '../../generated/prisma/client.ts';
import type { VehicleStatus } from '../../generated/prisma/enums.ts';
import { present } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { VehicleErrors } from './vehicle.errors.ts';
import { VEHICLE_FIELDS } from './vehicle.fields.ts';

/** A vehicle is active (bookable) until archived; archiving is for good. */
export const vehicleMachine = defineMachine({
  object: 'vehicle',
  states: ['active', 'archived'] as const satisfies readonly VehicleStatus[],
  initial: ['active'],
  terminal: ['archived'],
  actions: {
    archive: { from: ['active'], to: 'archived', event: 'vehicle.archived' },
  },
});

/**
 * The one rule for new time on a vehicle (a quote, a booking, a booking's new period, an
 * extension): an archived vehicle takes none (409 vehicle_archived; `param` names the field
 * that chose the vehicle, when the request has one).
 */
export function assertBookable(vehicle: Pick<Vehicle, 'id' | 'status'>, param?: string): void {
  if (vehicle.status !== 'active') throw VehicleErrors.archived(vehicle.id, param);
}

/** The vehicle as events carry it (the same fields as the API's answer). */
export function presentVehicle(row: Vehicle) {
  return present('vehicle', VEHICLE_FIELDS, row, { next_states: vehicleMachine.nextStates({ state: row.status }) });
}
