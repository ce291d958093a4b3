import type { IdentityVerification } from '../../generated/prisma/client.ts';
import type { CheckState } from '../../generated/prisma/enums.ts';
import { bookingRecordLifecycle } from '../shared/lifecycle.ts';
import { present } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { IDENTITY_VERIFICATION_FIELDS } from './identity.fields.ts';

/**
 * A booking's identity verification: pending → processing → verified | rejected; a verdict
 * may be revised (rejected → verified after a second look, and the reverse); canceled with
 * its booking.
 */
export const identityMachine = defineMachine({
  object: 'identity_verification',
  states: ['pending', 'processing', 'verified', 'rejected', 'canceled'] as const satisfies readonly CheckState[],
  initial: ['pending'],
  terminal: ['canceled'],
  actions: {
    submit: { from: ['pending'], to: 'processing' },
    verify: { from: ['pending', 'processing', 'rejected'], to: 'verified', event: 'identity.verified' },
    reject: { from: ['pending', 'processing', 'verified'], to: 'rejected', event: 'identity.rejected' },
    cancel: { from: ['pending', 'processing', 'verified', 'rejected'], to: 'canceled' },
  },
});

export type IdentityAction = keyof typeof identityMachine.actions;

export function presentIdentityVerification(row: IdentityVerification) {
  return present('identity_verification', IDENTITY_VERIFICATION_FIELDS, row, { next_states: identityMachine.nextStates(row) });
}

export const identityLifecycle = bookingRecordLifecycle<IdentityVerification, IdentityAction>(identityMachine, (db) => db.identityVerification, presentIdentityVerification);
