import { builder } from '../builder.ts';
import { getIdentityVerification, getIdentityVerificationMedia, type IdentityMedia } from '../domain/identity/get-identity-verification.ts';
import { documentsOf, IDENTITY_DOCUMENT_KINDS, IDENTITY_VERIFICATION_FIELDS, type IdentityDocument } from '../domain/identity/identity.fields.ts';
import { clientSecretOf, identityMachine } from '../domain/identity/identity-state.ts';
import { startIdentityVerification } from '../domain/identity/start-identity-verification.ts';
import { enums, enumType } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

const DocumentKind = enumType('IdentityDocumentKind', IDENTITY_DOCUMENT_KINDS, 'Which side or picture a document is.');

const IdentityDocumentRef = builder.objectRef<IdentityDocument>('IdentityDocument').implement({
  description: 'A document handed in for identity verification: its kind and the uploaded file. Never a link: the media operation gives short-lived ones.',
  fields: (t) => ({
    kind: t.field({ type: DocumentKind, resolve: (d) => d.kind }),
    fileId: t.id({ description: 'The uploaded file (file_...).', resolve: (d) => d.file_id }),
  }),
});

builder.prismaObject('IdentityVerification', {
  description: "A booking's identity verification, decided by the identity provider (the sandbox for test keys, Stripe Identity for live keys).",
  fields: (t) => ({
    ...(exposePublicFields(t, IDENTITY_VERIFICATION_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.CheckState], description: 'States the verification can move to now.', resolve: (v) => identityMachine.nextStates(v) }),
    documents: t.field({ type: [IdentityDocumentRef], description: 'The documents handed in, by kind and file id.', select: { documents: true }, resolve: (v) => documentsOf(v) }),
    clientSecret: t.string({
      nullable: true,
      description: "Completes the provider's verification flow in the customer's app (Stripe.js verifyIdentity for live keys). In the start's answer only; null elsewhere.",
      resolve: (v) => clientSecretOf(v),
    }),
    booking: t.relation('booking'),
  }),
});

const IdentityMediaRef = builder.objectRef<IdentityMedia>('IdentityMedia').implement({
  description: "A short-lived, signed link to one identity document's bytes.",
  fields: (t) => ({
    kind: t.field({ type: DocumentKind, resolve: (m) => m.kind }),
    url: t.exposeString('url', { description: 'Signed for this business, environment and file; refused once expired or altered.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'At most 5 minutes from now.' }),
  }),
});

const IdentityVerificationMediaRef = builder.objectRef<{ bookingId: string; data: IdentityMedia[] }>('IdentityVerificationMedia').implement({
  description: "Private media references of a booking's identity documents: short-lived signed links only.",
  fields: (t) => ({
    bookingId: t.exposeID('bookingId'),
    data: t.field({ type: [IdentityMediaRef], description: 'One link per document still stored.', resolve: (m) => m.data }),
  }),
});

const read = operationField(getIdentityVerification);
const media = operationField(getIdentityVerificationMedia);
const start = operationField(startIdentityVerification);

builder.queryFields((t) => ({
  bookingIdentityVerification: read.prisma(t, 'IdentityVerification'),
  identityVerificationMedia: media.plain(t, IdentityVerificationMediaRef),
}));

builder.mutationFields((t) => ({
  startIdentityVerification: start.prisma(t, 'IdentityVerification'),
}));
