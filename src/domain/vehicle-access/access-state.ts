import type { VehicleAccess } from '../../generated/prisma/client.ts';
import type { VehicleAccessState } from '../../generated/prisma/enums.ts';
import { bookingRecordLifecycle } from '../shared/lifecycle.ts';
import { present } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';

/**
 * A booking's vehicle access (how the customer gets into the car): configured → released
 * (the code and instructions are handed over) → revoked; a revoked access may be configured
 * or released again. Release is also guarded by the booking's readiness (never bypassed).
 */
export const accessMachine = defineMachine({
  object: 'vehicle_access',
  states: ['configured', 'released', 'revoked'] as const satisfies readonly VehicleAccessState[],
  initial: ['configured'],
  terminal: [],
  actions: {
    configure: { from: ['configured', 'revoked'], to: 'configured', verb: 'configure' },
    release: { from: ['configured', 'revoked'], to: 'released' },
    revoke: { from: ['released'], to: 'revoked' },
  },
});

export type AccessAction = keyof typeof accessMachine.actions;

/** Access records emit no events: their codes must not travel in one. */
export const accessLifecycle = bookingRecordLifecycle<VehicleAccess, AccessAction>(accessMachine, (db) => db.vehicleAccess, (row) =>
  present('vehicle_access', { bookingId: { kind: 'id' }, state: { kind: { enum: 'VehicleAccessState' } }, method: { kind: 'string' } }, row),
);
