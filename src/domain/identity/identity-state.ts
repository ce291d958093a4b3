import type { IdentityVerification } from '../../generated/prisma/client.ts';
import type { CheckState } from '../../generated/prisma/enums.ts';
import { bookingRecordLifecycle } from '../shared/lifecycle.ts';
import { present } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { documentsOf, IDENTITY_VERIFICATION_FIELDS } from './identity.fields.ts';

/**
 * A booking's identity verification: pending → processing (handed to the identity provider)
 * → verified | rejected; a rejected one may be started again (processing); a verdict may be
 * revised (rejected → verified after a second look, and the reverse); canceled with its
 * booking.
 */
export const identityMachine = defineMachine({
  object: 'identity_verification',
  states: ['pending', 'processing', 'verified', 'rejected', 'canceled'] as const satisfies readonly CheckState[],
  initial: ['pending'],
  terminal: ['canceled'],
  actions: {
    submit: { from: ['pending'], to: 'processing', event: 'identity.processing' },
    restart: { from: ['rejected'], to: 'processing', event: 'identity.processing', verb: 'start again' },
    verify: { from: ['pending', 'processing', 'rejected'], to: 'verified', event: 'identity.verified' },
    reject: { from: ['pending', 'processing', 'verified'], to: 'rejected', event: 'identity.rejected' },
    cancel: { from: ['pending', 'processing', 'verified', 'rejected'], to: 'canceled' },
  },
});

export type IdentityAction = keyof typeof identityMachine.actions;

/** The verification as REST, events and webhooks show it: documents by kind and file id, never a URL. */
export function presentIdentityVerification(row: IdentityVerification) {
  return present('identity_verification', IDENTITY_VERIFICATION_FIELDS, row, { next_states: identityMachine.nextStates(row), documents: documentsOf(row) });
}

export const identityLifecycle = bookingRecordLifecycle<IdentityVerification, IdentityAction>(identityMachine, (db) => db.identityVerification, presentIdentityVerification);

/** The provider session's client secret, attached to the start's answer only: stored nowhere, in no event. */
const clientSecrets = new WeakMap<object, string>();
export function withClientSecret<Row extends object>(row: Row, clientSecret: string): Row {
  clientSecrets.set(row, clientSecret);
  return row;
}
export const clientSecretOf = (row: object): string | null => clientSecrets.get(row) ?? null;
