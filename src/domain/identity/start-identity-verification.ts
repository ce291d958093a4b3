import { z } from 'zod';
import { isUniqueViolation } from '../../db/database-errors.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { assertUsableFiles, claimUploadedFiles } from '../files/file-usage.ts';
import { FileErrors } from '../files/file.errors.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { newId } from '../shared/ids.ts';
import { createByAction, runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { IDENTITY_DOCUMENT_KINDS, type IdentityDocument } from './identity.fields.ts';
import { IdentityErrors } from './identity.errors.ts';
import { identityLifecycle, identityMachine, withClientSecret } from './identity-state.ts';

const FRONTS = ['id_front', 'license_front'];

const documentInput = z
  .object({
    kind: z.enum(IDENTITY_DOCUMENT_KINDS).meta({ id: 'IdentityDocumentKind', description: 'Which side or picture this is.' }),
    fileId: id('The uploaded file (file_...), uploaded with purpose identity_document.'),
  })
  .meta({ id: 'IdentityDocumentInput' });

const startInput = z
  .object({
    documents: z
      .array(documentInput)
      .min(1)
      .max(IDENTITY_DOCUMENT_KINDS.length)
      .refine((docs) => new Set(docs.map((d) => d.kind)).size === docs.length, 'each kind at most once')
      .refine((docs) => docs.some((d) => FRONTS.includes(d.kind)), 'needs the front of an identity document or a driving license (id_front or license_front)')
      .meta({ description: 'The documents handed in, each kind at most once, with at least id_front or license_front.' }),
  })
  .meta({ id: 'StartIdentityVerificationInput' });

export const startIdentityVerification = defineOperation({
  name: 'startIdentityVerification',
  summary: 'Start identity verification',
  description:
    "Hands the customer's documents (uploaded files with purpose identity_document: id_front, id_back, selfie, license_front, license_back) to the identity provider and moves the booking's verification to processing (identity.processing). Test keys use the sandbox, whose verdict comes from POST /v1/test/bookings/{id}/identity/verify or /fail; live keys use Stripe Identity, whose verdict arrives as its event. client_secret (this answer only) completes the provider's flow in the customer's app. A rejected verification may be started again (the identity gate is pending again); one processing or verified is 409. Allowed before pickup, or while the booking is in problem.",
  access: { permission: 'identity:write' },
  args: z.object({ bookingId: id('The booking (bk_...).'), input: startInput }),
  errors: [CommonErrors.invalidStateTransition, FileErrors.notUsable, IdentityErrors.providerUnavailable, IdentityErrors.providerNotConfigured],
  example: {
    bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x',
    input: { documents: [{ kind: 'id_front', fileId: 'file_01jd3m4k5n6p7q8r9s0t1v2w3x' }, { kind: 'selfie', fileId: 'file_01jd3m4k5n6p7q8r9s0t1v2w3y' }] },
  },
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    const existing = await ctx.db.identityVerification.findUnique({ where: { bookingId: booking.id } });
    const action = existing?.state === 'rejected' ? 'restart' : 'submit';
    // Refused before the provider hears of it: the wrong state, a file that cannot serve.
    bookingMachine.check(booking, 'restart_identity');
    identityMachine.check(existing ?? { state: 'pending' }, action);
    const documents: IdentityDocument[] = args.input.documents.map((d) => ({ kind: d.kind, file_id: d.fileId }));
    const paramOf = (fileId: string) => `documents.${documents.findIndex((d) => d.file_id === fileId)}.file_id`;
    const fileIds = documents.map((d) => d.file_id);
    await assertUsableFiles(ctx.db, [...new Set(fileIds)], paramOf, { purpose: 'identity_document' });

    const customer = await ctx.db.customer.findUnique({ where: { id: booking.customerId }, select: { email: true } });
    const verificationId = existing?.id ?? newId('identityVerification');
    // A retry with the same Idempotency-Key reaches the provider's same session, even if this
    // attempt's write below never happened; a restart (the row changed since) opens a new one.
    const session = await ctx.identity.startVerification({
      bookingId: booking.id,
      verificationId,
      documentKinds: documents.map((d) => d.kind),
      email: customer?.email ?? null,
      idempotencyKey: `identity:${booking.id}:${existing?.updatedAt.getTime() ?? 'new'}:${ctx.idempotencyKey ?? newId('request')}`,
    });
    const changes = { provider: ctx.identity.name, providerSessionId: session.id, documents: documents as never, failureCode: null };
    const origin = originOf(ctx);
    let started;
    try {
      started = await ctx.db.$transaction(async (tx) => {
        await claimUploadedFiles(tx, fileIds, paramOf, { purpose: 'identity_document' });
        if (booking.identityGate === 'failed') await applyBookingAction(tx, origin, booking, 'restart_identity');
        if (existing) return runAction(tx, origin, identityLifecycle, existing, action, changes);
        return createByAction(tx, origin, identityLifecycle, { from: 'pending' }, 'submit', {
          id: verificationId, businessId: booking.businessId, livemode: booking.livemode, bookingId: booking.id, ...changes,
        });
      });
    } catch (err) {
      // Another start for this booking committed first.
      if (isUniqueViolation(err)) throw CommonErrors.invalidStateTransition('identity_verification', 'processing', 'An identity verification of this booking was started meanwhile; read it with GET .../identity-verification.');
      throw err;
    }
    // The client secret rides on this answer only (the schema's clientSecret field reads it).
    const row = await ctx.db.identityVerification.findUniqueOrThrow({ ...query, where: { id: started.id } });
    return withClientSecret(row, session.clientSecret);
  },
});
