import type { Deposit } from '../../generated/prisma/client.ts';
import type { BookingState, DepositState } from '../../generated/prisma/enums.ts';
import type { Lifecycle } from '../shared/lifecycle.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { presentDeposit } from './deposit.fields.ts';

/** What the deposit's guards read: its state, and its booking's when the caller knows it. */
export interface DepositFacts {
  state: DepositState;
  bookingState?: BookingState;
}

const RENTAL_OVER: readonly BookingState[] = ['return_in_review', 'completed', 'problem'];

/**
 * The security deposit (the contract's "Money"): not_required | required → pending → secured →
 * captured | partially_captured | released | failed. Capture and release once the rental is
 * over, release also when the booking is canceled; a capture the processor fails goes back to
 * secured.
 */
export const depositMachine = defineMachine({
  object: 'deposit',
  states: ['not_required', 'required', 'pending', 'secured', 'captured', 'partially_captured', 'released', 'failed'] as const satisfies readonly DepositState[],
  initial: ['not_required', 'required'],
  // Not captured: a capture the processor then fails is given back to the hold.
  terminal: ['not_required', 'released'],
  guards: {
    rental_over: (d: DepositFacts) => (d.bookingState && RENTAL_OVER.includes(d.bookingState) ? null : `the rental is not over (the booking is '${d.bookingState ?? 'unknown'}')`),
    rental_over_or_canceled: (d: DepositFacts) =>
      d.bookingState && [...RENTAL_OVER, 'canceled', 'refunded'].includes(d.bookingState) ? null : `the rental is neither over nor canceled (the booking is '${d.bookingState ?? 'unknown'}')`,
  },
  actions: {
    request: { from: ['required'], to: 'pending' },
    secure: { from: ['required', 'pending', 'failed'], to: 'secured', event: 'deposit.secured' },
    fail: { from: ['required', 'pending'], to: 'failed' },
    capture: { from: ['secured'], to: 'captured', guards: ['rental_over'], event: 'deposit.captured' },
    capture_partially: { from: ['secured'], to: 'partially_captured', guards: ['rental_over'], event: 'deposit.captured', verb: 'capture' },
    release: { from: ['secured'], to: 'released', guards: ['rental_over_or_canceled'], event: 'deposit.released' },
    reverse_capture: { from: ['captured', 'partially_captured'], to: 'secured', event: 'deposit.capture_failed', verb: 'reverse a capture of' },
  },
});

export type DepositAction = keyof typeof depositMachine.actions;

/** A deposit row, with its booking's state when the caller read it (the guards need it). */
export type DepositRecord = Deposit & { bookingState?: BookingState };

export const depositLifecycle: Lifecycle<DepositRecord, DepositFacts, DepositAction> = {
  machine: depositMachine,
  records: (db) => db.deposit,
  facts: (deposit) => ({ state: deposit.state, bookingState: deposit.bookingState }),
  present: presentDeposit,
  bookingId: (deposit) => deposit.bookingId,
};
