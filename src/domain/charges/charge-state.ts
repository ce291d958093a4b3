import type { Charge } from '../../generated/prisma/client.ts';
import type { BookingState, ChargeState } from '../../generated/prisma/enums.ts';
import type { Lifecycle } from '../shared/lifecycle.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { ChargeErrors } from './charge.errors.ts';
import { presentCharge } from './charge.fields.ts';

export interface ChargeFacts {
  state: ChargeState;
  id?: string;
}

const disputeLock = (c: ChargeFacts) => ChargeErrors.disputed(c.id ?? 'this charge');

/**
 * A post-trip charge (the contract's "Money"): pending → processing → succeeded | failed;
 * pending | failed → waived; disputed while a dispute of it is open (before or after
 * collection), which locks collection (the spec's gating rule 4: 409 charge_disputed).
 */
export const chargeMachine = defineMachine({
  object: 'charge',
  states: ['pending', 'processing', 'succeeded', 'failed', 'waived', 'disputed'] as const satisfies readonly ChargeState[],
  initial: ['pending'],
  terminal: ['waived'],
  actions: {
    collect: { from: ['pending', 'failed'], to: 'processing', lockedIn: { disputed: disputeLock } },
    // The processor could not be reached: the outcome is unknown, the charge is pending again
    // and a retry reaches the processor with the same idempotency key.
    interrupt: { from: ['processing'], to: 'pending', verb: 'interrupt the collection of' },
    succeed: { from: ['pending', 'processing', 'failed'], to: 'succeeded', event: 'charge.succeeded', verb: 'collect', lockedIn: { disputed: disputeLock } },
    fail: { from: ['pending', 'processing'], to: 'failed', event: 'charge.failed', verb: 'fail the collection of', lockedIn: { disputed: disputeLock } },
    waive: { from: ['pending', 'failed'], to: 'waived', event: 'charge.waived' },
    // The dispute's own events tell about it (dispute.created).
    dispute: { from: ['pending', 'processing', 'succeeded', 'failed'], to: 'disputed' },
    // A closed dispute: the charge stands again, collectable, or collected as it was.
    reinstate: { from: ['disputed'], to: 'pending' },
    reinstate_collected: { from: ['disputed'], to: 'succeeded', verb: 'reinstate' },
    // An approved dispute: the customer's claim is accepted.
    waive_disputed: { from: ['disputed'], to: 'waived', event: 'charge.waived', verb: 'waive' },
  },
});

export type ChargeAction = keyof typeof chargeMachine.actions;

/** Booking states in which post-trip charges may be created (the contract: from `active` on). */
export const CHARGEABLE_BOOKING_STATES: readonly BookingState[] = ['active', 'late', 'return_in_review', 'completed', 'problem'];

export const chargeLifecycle: Lifecycle<Charge, ChargeFacts, ChargeAction> = {
  machine: chargeMachine,
  records: (db) => db.charge,
  facts: (charge) => ({ state: charge.state, id: charge.id }),
  present: presentCharge,
  bookingId: (charge) => charge.bookingId,
};
