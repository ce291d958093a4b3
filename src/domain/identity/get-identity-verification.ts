import { z } from 'zod';
import { readBooking } from '../bookings/get-booking.ts';
import { signedDownload } from '../files/file-links.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { documentsOf, type IdentityDocumentKind } from './identity.fields.ts';

const bookingId = id('The booking (bk_...).');
const EXAMPLE = { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' };

export const getIdentityVerification = defineOperation({
  name: 'bookingIdentityVerification',
  summary: 'Retrieve verification state',
  description:
    "The booking's identity verification: its state (pending, processing, verified, rejected, canceled), next_states, failure_code while rejected, the provider, and the documents handed in by kind and file id (never a link: GET .../identity-verification/media gives short-lived ones). 404 until one is started or a verdict recorded.",
  access: { permission: 'identity:read' },
  args: z.object({ bookingId }),
  errors: [],
  example: EXAMPLE,
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    return found(ctx.db.identityVerification.findUnique({ ...query, where: { bookingId: booking.id } }), 'identity_verification', booking.id);
  },
});

/** One document's private media: a signed link to its bytes, valid at most 5 minutes. */
export interface IdentityMedia {
  kind: IdentityDocumentKind;
  url: string;
  expiresAt: Date;
}

export const getIdentityVerificationMedia = defineOperation({
  name: 'identityVerificationMedia',
  summary: 'Retrieve authorized private media references',
  description:
    "Short-lived links to the identity documents' bytes, one per document still stored: `data: [{kind, url, expires_at}]`. Each url is signed for this business and environment and that file, expires within 5 minutes, and is refused after that or when altered (403 file_link_invalid); ask again for new ones. Nothing else ever carries a link to identity documents: not the verification, not its events, not the file's own download_url.",
  access: { permission: 'identity:read' },
  args: z.object({ bookingId }),
  errors: [],
  example: EXAMPLE,
  async run(ctx, args): Promise<{ bookingId: string; data: IdentityMedia[] }> {
    const booking = await readBooking(ctx, args.bookingId);
    const verification = await found(ctx.db.identityVerification.findUnique({ where: { bookingId: booking.id } }), 'identity_verification', booking.id);
    const documents = documentsOf(verification);
    const files = await ctx.db.file.findMany({ where: { id: { in: documents.map((d) => d.file_id) } }, select: { id: true, state: true } });
    const now = ctx.now();
    const data: IdentityMedia[] = [];
    for (const document of documents) {
      const file = files.find((f) => f.id === document.file_id);
      const link = file ? signedDownload(ctx.files, file, now) : null;
      if (link) data.push({ kind: document.kind, url: link.url, expiresAt: link.expiresAt });
    }
    return { bookingId: booking.id, data };
  },
});
