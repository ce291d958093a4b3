import type { Agreement } from '../../generated/prisma/client.ts';
import type { AgreementState } from '../../generated/prisma/enums.ts';
import { bookingRecordLifecycle } from '../shared/lifecycle.ts';
import { present } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { AGREEMENT_FIELDS, signerOf } from './agreement.fields.ts';

/**
 * A booking's rental agreement: draft → sent → signed; voided when it no longer applies (a
 * reason is kept), after which the booking may get a new one. A new document (revise) puts a
 * draft or sent agreement back to draft: links to the old version stop working. Sending again
 * while sent makes a new link for the same version.
 */
export const agreementMachine = defineMachine({
  object: 'agreement',
  states: ['draft', 'sent', 'signed', 'voided'] as const satisfies readonly AgreementState[],
  initial: ['draft'],
  terminal: ['voided'],
  actions: {
    revise: { from: ['draft', 'sent'], to: 'draft', event: 'agreement.created', verb: 'replace the document of' },
    send: { from: ['draft', 'sent'], to: 'sent', event: 'agreement.sent', verb: 'send' },
    sign: { from: ['draft', 'sent'], to: 'signed', event: 'agreement.signed' },
    void: { from: ['draft', 'sent', 'signed'], to: 'voided', event: 'agreement.voided' },
  },
});

export type AgreementAction = keyof typeof agreementMachine.actions;

/** The agreement as answers and events show it: never a signing link (that is a credential). */
export function presentAgreement(row: Agreement) {
  const signer = signerOf(row);
  return present('agreement', AGREEMENT_FIELDS, row, {
    next_states: agreementMachine.nextStates(row),
    signer: signer && { name: signer.name, ip: signer.ip, user_agent: signer.userAgent, document_sha256: signer.documentSha256 },
  });
}

export const agreementLifecycle = bookingRecordLifecycle<Agreement, AgreementAction>(agreementMachine, (db) => db.agreement, presentAgreement);
