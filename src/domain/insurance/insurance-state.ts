import type { Insurance } from '../../generated/prisma/client.ts';
import type { InsuranceState } from '../../generated/prisma/enums.ts';
import { bookingRecordLifecycle, type Lifecycle } from '../shared/lifecycle.ts';
import { present, type PublicFields } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';

export const INSURANCE_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  state: { kind: { enum: 'InsuranceState' } },
  provider: { kind: 'string', nullable: true },
  policyRef: { kind: 'string', nullable: true },
  documentFileIds: { kind: 'strings' },
  expiresOn: { kind: 'string', nullable: true, description: 'The last day the coverage is in force (YYYY-MM-DD). A policy that ends before the rental does is rejected.' },
  rejectionReason: { kind: 'string', nullable: true },
  createdAt: { kind: 'datetime' },
};

/** What the insurance's guards read: the submission, and (when known) the last day of the rental it must cover. */
export interface InsuranceFacts {
  state: InsuranceState;
  expiresOn: string | null;
  /** The rental's last day (YYYY-MM-DD, business time zone); absent where the booking is not at hand. */
  rentalEndsOn?: string;
}

/** Why a policy does not cover the rental, or null when it does (or when its end is not stated). */
export function coverageGap(expiresOn: string | null, rentalEndsOn: string | undefined): string | null {
  if (!expiresOn || !rentalEndsOn || expiresOn >= rentalEndsOn) return null; // ISO dates compare as strings
  return `the policy expires on ${expiresOn}, before the rental ends on ${rentalEndsOn}`;
}

/**
 * A booking's insurance submission: submitted → approved | rejected; a rejected one may be
 * submitted again. A policy that ends before the rental does cannot be approved.
 */
export const insuranceMachine = defineMachine({
  object: 'insurance',
  states: ['submitted', 'approved', 'rejected'] as const satisfies readonly InsuranceState[],
  initial: ['submitted'],
  terminal: ['approved'],
  guards: {
    covers_rental: (f: InsuranceFacts) => coverageGap(f.expiresOn, f.rentalEndsOn),
  },
  actions: {
    approve: { from: ['submitted'], to: 'approved', guards: ['covers_rental'], event: 'insurance.approved' },
    reject: { from: ['submitted'], to: 'rejected', event: 'insurance.rejected' },
    resubmit: { from: ['rejected'], to: 'submitted', event: 'insurance.submitted', verb: 'submit again' },
  },
});

export type InsuranceAction = keyof typeof insuranceMachine.actions;

export function presentInsurance(row: Insurance) {
  return present('insurance', INSURANCE_FIELDS, row, { next_states: insuranceMachine.nextStates(row) });
}

export const insuranceLifecycle = bookingRecordLifecycle<Insurance, InsuranceAction>(insuranceMachine, (db) => db.insurance, presentInsurance);

/** The lifecycle with the rental's last day at hand, so that approval checks the coverage. */
export function insuranceLifecycleOf(rentalEndsOn: string): Lifecycle<Insurance, InsuranceFacts, InsuranceAction> {
  return { ...insuranceLifecycle, facts: (row) => ({ ...row, rentalEndsOn }) };
}
