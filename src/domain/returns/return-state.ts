import type { VehicleReturn } from '../../generated/prisma/client.ts';
import type { ReturnState } from '../../generated/prisma/enums.ts';
import { bookingRecordLifecycle } from '../shared/lifecycle.ts';
import { present } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';

/**
 * The return of a rented vehicle, as its own record (the trip's return flow): not_started →
 * in_progress (photos, odometer) → submitted → completed. The booking's table moves the
 * booking alongside (submit_return, complete_return) and emits the events; this table guards
 * the return record's own steps.
 */
export const returnMachine = defineMachine({
  object: 'return',
  states: ['not_started', 'in_progress', 'submitted', 'completed'] as const satisfies readonly ReturnState[],
  initial: ['not_started'],
  terminal: ['completed'],
  actions: {
    start: { from: ['not_started'], to: 'in_progress' },
    submit: { from: ['not_started', 'in_progress'], to: 'submitted' },
    reopen: { from: ['submitted'], to: 'in_progress' },
    complete: { from: ['submitted'], to: 'completed' },
  },
});

export type ReturnAction = keyof typeof returnMachine.actions;

const presentReturnRecord = (row: VehicleReturn) =>
  present('return', { bookingId: { kind: 'id' }, state: { kind: { enum: 'ReturnState' } }, startedAt: { kind: 'datetime', nullable: true }, submittedAt: { kind: 'datetime', nullable: true }, completedAt: { kind: 'datetime', nullable: true } }, row);

/** Return records emit no events of their own: the booking's actions beside them do (return.submitted, rental.completed). */
export const returnLifecycle = bookingRecordLifecycle<VehicleReturn, ReturnAction>(returnMachine, (db) => db.vehicleReturn, presentReturnRecord);
