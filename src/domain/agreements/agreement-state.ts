import type { Agreement } from '../../generated/prisma/client.ts';
import type { AgreementState } from '../../generated/prisma/enums.ts';
import { bookingRecordLifecycle } from '../shared/lifecycle.ts';
import { present } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { AGREEMENT_FIELDS } from './agreement.fields.ts';

/** A booking's rental agreement: draft → sent → signed; voided when it no longer applies. */
export const agreementMachine = defineMachine({
  object: 'agreement',
  states: ['draft', 'sent', 'signed', 'voided'] as const satisfies readonly AgreementState[],
  initial: ['draft'],
  terminal: ['voided'],
  actions: {
    send: { from: ['draft'], to: 'sent', event: 'agreement.sent', verb: 'send' },
    sign: { from: ['draft', 'sent'], to: 'signed', event: 'agreement.signed' },
    void: { from: ['draft', 'sent', 'signed'], to: 'voided' },
  },
});

export type AgreementAction = keyof typeof agreementMachine.actions;

export function presentAgreement(row: Agreement) {
  return present('agreement', AGREEMENT_FIELDS, row, { next_states: agreementMachine.nextStates(row) });
}

export const agreementLifecycle = bookingRecordLifecycle<Agreement, AgreementAction>(agreementMachine, (db) => db.agreement, presentAgreement);
