import { builder } from '../builder.ts';
import { getAgreement, getAgreementStatus, type AgreementStatus } from '../domain/agreements/agreement-reads.ts';
import { agreementMachine } from '../domain/agreements/agreement-state.ts';
import { AGREEMENT_FIELDS, signerOf, type AgreementSigner } from '../domain/agreements/agreement.fields.ts';
import { createAgreement } from '../domain/agreements/create-agreement.ts';
import { sendAgreement, type SentAgreement } from '../domain/agreements/send-agreement.ts';
import { voidAgreement } from '../domain/agreements/void-agreement.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

const AgreementSignerRef = builder.objectRef<AgreementSigner>('AgreementSigner').implement({
  description: 'Who signed the agreement, from where, and exactly which document.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true, description: 'The name the signer gave.' }),
    ip: t.exposeString('ip', { nullable: true, description: "The signing request's IP address (null for the sandbox's signer)." }),
    userAgent: t.exposeString('userAgent', { nullable: true, description: "The signing request's user agent." }),
    documentSha256: t.exposeString('documentSha256', { nullable: true, description: 'The SHA-256 of the document version signed.' }),
  }),
});

/** Only the send answer carries these; every other read of an agreement shows null. */
const sent = (a: object) => ('signingUrl' in a ? (a as SentAgreement) : null);

builder.prismaObject('Agreement', {
  description: "A booking's rental agreement: the rendered document, sending it for signature, and the signature.",
  fields: (t) => ({
    ...(exposePublicFields(t, AGREEMENT_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.AgreementState], description: 'States the agreement can move to now.', resolve: (a) => agreementMachine.nextStates(a) }),
    signer: t.field({ type: AgreementSignerRef, nullable: true, description: 'Null until signed.', resolve: (a) => signerOf(a) }),
    signingUrl: t.string({
      nullable: true,
      description: "The customer's signing link: only in the answer of sendAgreement (it is a credential; events and reads never show it).",
      resolve: (a) => sent(a)?.signingUrl ?? null,
    }),
    signingUrlExpiresAt: t.field({ type: 'DateTime', nullable: true, description: 'When the signing link stops working (sendAgreement only).', resolve: (a) => sent(a)?.signingUrlExpiresAt ?? null }),
    messageId: t.id({ nullable: true, description: 'The message that carried the link (sendAgreement only).', resolve: (a) => sent(a)?.messageId ?? null }),
    booking: t.relation('booking'),
    file: t.relation('file', { nullable: true, description: "The current version's PDF." }),
  }),
});

const AgreementStatusRef = builder.objectRef<AgreementStatus>('AgreementStatus').implement({
  description: "Where a booking's rental agreement stands.",
  fields: (t) => ({
    bookingId: t.exposeID('bookingId'),
    state: t.expose('state', { type: enums.AgreementState }),
    nextStates: t.field({ type: [enums.AgreementState], resolve: (s) => s.nextStates }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true }),
    signedAt: t.expose('signedAt', { type: 'DateTime', nullable: true }),
    signedBy: t.exposeString('signedBy', { nullable: true, description: "The signer's name." }),
  }),
});

const read = operationField(getAgreement);
const status = operationField(getAgreementStatus);
const create = operationField(createAgreement);
const send = operationField(sendAgreement);
const voidIt = operationField(voidAgreement);

builder.queryFields((t) => ({
  bookingAgreement: read.prisma(t, 'Agreement'),
  agreementStatus: status.plain(t, AgreementStatusRef),
}));

builder.mutationFields((t) => ({
  createAgreement: create.prisma(t, 'Agreement'),
  sendAgreement: send.prisma(t, 'Agreement'),
  voidAgreement: voidIt.prisma(t, 'Agreement'),
}));
