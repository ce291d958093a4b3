import { defineMachine } from '../shared/state-machine.ts';

/**
 * The return of a rented vehicle, as its own record (the trip's return flow): not_started →
 * in_progress (photos, odometer) → submitted → completed. The booking's table moves the
 * booking alongside (submit_return, complete_return) and emits the events; this table guards
 * the return record's own steps.
 */
export type ReturnState = 'not_started' | 'in_progress' | 'submitted' | 'completed';

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
