import type { Insurance } from '../../generated/prisma/client.ts';
import type { InsuranceState } from '../../generated/prisma/enums.ts';
import { bookingRecordLifecycle } from '../shared/lifecycle.ts';
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
  rejectionReason: { kind: 'string', nullable: true },
  createdAt: { kind: 'datetime' },
};

/** A booking's insurance submission: submitted → approved | rejected; a rejected one may be submitted again. */
export const insuranceMachine = defineMachine({
  object: 'insurance',
  states: ['submitted', 'approved', 'rejected'] as const satisfies readonly InsuranceState[],
  initial: ['submitted'],
  terminal: ['approved'],
  actions: {
    approve: { from: ['submitted'], to: 'approved', event: 'insurance.approved' },
    reject: { from: ['submitted'], to: 'rejected', event: 'insurance.rejected' },
    resubmit: { from: ['rejected'], to: 'submitted', event: 'insurance.submitted', verb: 'submit again' },
  },
});

export type InsuranceAction = keyof typeof insuranceMachine.actions;

export function presentInsurance(row: Insurance) {
  return present('insurance', INSURANCE_FIELDS, row, { next_states: insuranceMachine.nextStates(row) });
}

export const insuranceLifecycle = bookingRecordLifecycle<Insurance, InsuranceAction>(insuranceMachine, (db) => db.insurance, presentInsurance);
