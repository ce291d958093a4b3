import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isUniqueViolation } from '../../db/database-errors.ts';
import type { Agreement, Booking } from '../../generated/prisma/client.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { loadSettings } from '../business/business-settings.ts';
import { originOf } from '../events/event.service.ts';
import { storageKey } from '../files/file-links.ts';
import { fileLifecycle } from '../files/file-state.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { createByAction, runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { renderAgreementPdf } from './agreement-document.ts';
import { agreementLifecycle, agreementMachine } from './agreement-state.ts';
import { currentAgreement } from './current-agreement.ts';

export const bookingIdArg = id('The booking (bk_...).');
export const AGREEMENT_EXAMPLE = { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' };

/** An agreement is prepared while the booking has not started (or needs a human): not for a canceled or finished one. */
export function assertBookingTakesAgreement(booking: Booking) {
  if (!bookingMachine.can(booking, 'sign_agreement'))
    throw CommonErrors.invalidStateTransition('booking', booking.state, `Cannot prepare the agreement of a booking in state '${booking.state}'.`);
}

/** The PDF of the agreement's next version, from the booking's snapshot, its customer and vehicle, and the business's terms. */
async function renderVersion(ctx: DomainContext, booking: Booking, agreementId: string, version: number, issuedAt: Date) {
  const [customer, vehicle, business, { settings }] = await Promise.all([
    ctx.db.customer.findUniqueOrThrow({ where: { id: booking.customerId } }),
    ctx.db.vehicle.findUniqueOrThrow({ where: { id: booking.vehicleId } }),
    ctx.db.business.findUniqueOrThrow({ where: { id: ctx.tenant.businessId }, select: { name: true } }),
    loadSettings(ctx),
  ]);
  return renderAgreementPdf({
    agreementId,
    version,
    businessName: business.name,
    booking,
    customer,
    vehicle,
    terms: settings.agreement_requirements.terms,
    issuedAt,
  });
}

export const createAgreement = defineOperation({
  name: 'createAgreement',
  summary: 'Create an agreement',
  description:
    "Renders the booking's rental agreement as a PDF (the period, the price snapshot, the deposit, the included miles and mileage fee, the vehicle, the customer and the business's terms: agreement_requirements.terms) and stores it as a file (purpose agreement; GET /v1/files/{id} for a download link). Answers the agreement in draft with its file_id, document_sha256 and version. Creating again while draft or sent replaces the document with a new version (agreement.created; links sent for the old version stop working, send it again); once signed, 409 (void it first: POST /v1/bookings/{booking_id}/agreement/void). After a void, creating makes a new agreement (a new id, version 1); the voided one stays as it was.",
  access: { permission: 'agreements:write' },
  args: z.object({ bookingId: bookingIdArg }),
  errors: [CommonErrors.invalidStateTransition],
  example: AGREEMENT_EXAMPLE,
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    assertBookingTakesAgreement(booking);
    // A voided agreement is history: creating again makes a new agreement (a new id, version 1).
    const current = await currentAgreement(ctx.db, booking.id);
    const existing = current?.state === 'voided' ? null : current;
    if (existing) agreementMachine.check(existing, 'revise');
    const agreementId = existing?.id ?? newId('agreement');
    const version = (existing?.version ?? 0) + 1;
    const now = ctx.now();
    const bytes = await renderVersion(ctx, booking, agreementId, version, now);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const fileId = newId('file');
    const key = storageKey({ ...ctx.tenant, id: fileId, sha256 });
    // The bytes first, under their own hash; the rows after. A failed write leaves no orphan bytes.
    await ctx.files.storage.put(key, bytes, 'application/pdf');
    let saved: Agreement;
    try {
      saved = await ctx.db.$transaction(async (tx) => {
        const origin = originOf(ctx);
        // Made by the service, so born uploaded (its table's upload action, as if its link had been used).
        await createByAction(tx, origin, fileLifecycle, { from: 'pending_upload', facts: { id: fileId, usedBy: [] } }, 'upload', {
          id: fileId, ...ctx.tenant, purpose: 'agreement', filename: `agreement-${booking.id}-v${version}.pdf`, contentType: 'application/pdf',
          sizeBytes: bytes.length, sha256, uploadExpiresAt: now, uploadedAt: now,
        });
        const document = { version, fileId, documentSha256: sha256, sentAt: null, sentVia: null };
        if (existing) return runAction(tx, origin, agreementLifecycle, existing, 'revise', document);
        return createByAction(tx, origin, agreementLifecycle, { from: 'draft' }, 'revise', { id: agreementId, ...ctx.tenant, bookingId: booking.id, ...document });
      });
    } catch (err) {
      await ctx.files.storage.remove(key);
      // Two first creations raced: one agreement per booking, the other request is told so.
      if (isUniqueViolation(err)) throw CommonErrors.invalidStateTransition('agreement', 'draft', 'Another request created this agreement meanwhile; read it and create again to replace its document.');
      throw err;
    }
    return ctx.db.agreement.findUniqueOrThrow({ ...query, where: { id: saved.id } });
  },
});
