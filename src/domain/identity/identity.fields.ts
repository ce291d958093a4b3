import type { PublicFields } from '../shared/presenter.ts';

export const IDENTITY_VERIFICATION_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  state: { kind: { enum: 'CheckState' } },
  failureCode: { kind: 'string', nullable: true, description: 'Why the identity was rejected (for example document_unverified), while it is.' },
  provider: { kind: 'string', nullable: true, description: 'Who decides: sandbox (test keys) or stripe_identity (live keys); null for a verdict recorded before any start.' },
  createdAt: { kind: 'datetime' },
  updatedAt: { kind: 'datetime' },
};

/** The kinds of document a verification takes. */
export const IDENTITY_DOCUMENT_KINDS = ['id_front', 'id_back', 'selfie', 'license_front', 'license_back'] as const;
export type IdentityDocumentKind = (typeof IDENTITY_DOCUMENT_KINDS)[number];

/** A document as a verification keeps it (its `documents` column): the kind and the uploaded file, never a link. */
export interface IdentityDocument {
  kind: IdentityDocumentKind;
  file_id: string;
}

/** The documents column, read defensively (a verdict recorded without a start has none). */
export function documentsOf(row: { documents: unknown }): IdentityDocument[] {
  return Array.isArray(row.documents) ? (row.documents as IdentityDocument[]).filter((d) => d && typeof d.kind === 'string' && typeof d.file_id === 'string') : [];
}
