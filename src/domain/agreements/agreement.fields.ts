import type { PublicFields } from '../shared/presenter.ts';

export const AGREEMENT_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  state: { kind: { enum: 'AgreementState' } },
  version: { kind: 'int', description: "The current document's version, from 1 (0: no document was rendered, as when the sandbox signs)." },
  fileId: { kind: 'id', nullable: true, description: 'The current version as a PDF (file_..., purpose agreement): GET /v1/files/{id} for a download link.' },
  documentSha256: { kind: 'string', nullable: true, description: "The SHA-256 (hex) of the current version's PDF." },
  sentAt: { kind: 'datetime', nullable: true },
  sentVia: { kind: { enum: 'MessageChannel' }, nullable: true, description: 'The channel of the last signing link sent.' },
  signedAt: { kind: 'datetime', nullable: true },
  voidedAt: { kind: 'datetime', nullable: true, description: 'When it was voided (POST /v1/bookings/{booking_id}/agreement/void).' },
  voidReason: { kind: 'string', nullable: true, description: 'Why it was voided, in the business’s words.' },
  createdAt: { kind: 'datetime' },
};

/** Who signed: null until the agreement is signed. */
export interface AgreementSigner {
  name: string | null;
  ip: string | null;
  userAgent: string | null;
  documentSha256: string | null;
}

export function signerOf(row: { signedAt: Date | null; signerName: string | null; signerIp: string | null; signerUserAgent: string | null; signedDocumentSha256: string | null }): AgreementSigner | null {
  if (!row.signedAt) return null;
  return { name: row.signerName, ip: row.signerIp, userAgent: row.signerUserAgent, documentSha256: row.signedDocumentSha256 };
}
