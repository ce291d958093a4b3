import type { Booking } from '../../generated/prisma/client.ts';
import { advanceBooking, type BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { createByAction, runAction } from '../shared/lifecycle.ts';
import { AgreementErrors } from './agreement.errors.ts';
import { agreementLifecycle } from './agreement-state.ts';
import { currentAgreement } from './current-agreement.ts';

/** Who signed, from where: the customer through their link, or the sandbox standing in for them. */
export interface Signature {
  name: string;
  ip: string | null;
  userAgent: string | null;
  /** The document version the signer was shown; a replaced one is refused. Absent: whatever is current (the sandbox). */
  version?: number;
  /** The agreement the signer's link names (absent: the booking's current one, the sandbox). */
  agreementId?: string;
}

/** The sandbox signs as this signer (POST /v1/test/bookings/{id}/agreement/sign). */
export const SANDBOX_SIGNATURE: Signature = { name: 'Sandbox signer', ip: null, userAgent: 'sandbox' };

/**
 * The customer signed the rental agreement (`agreement.signed`): who, from where, when, and
 * the SHA-256 of the exact document version they accepted are recorded, the agreement gate is
 * satisfied and the booking advances. The agreement is written by compare-and-set: a document
 * replaced while this ran makes the signature fail rather than attach to the new version.
 */
export async function recordAgreementSigned(tx: Db, origin: EventOrigin, booking: Booking, now: Date, signature: Signature): Promise<BookingOutcome> {
  const gated = await applyBookingAction(tx, origin, booking, 'sign_agreement');
  const named = signature.agreementId ? await tx.agreement.findUniqueOrThrow({ where: { id: signature.agreementId } }) : await currentAgreement(tx, booking.id);
  // The sandbox signs a voided booking's agreement by making a new one, as creating again would; a link names its own (and a voided one is refused).
  const existing = named?.state === 'voided' && !signature.agreementId ? null : named;
  const signer = { signedAt: now, signerName: signature.name, signerIp: signature.ip, signerUserAgent: signature.userAgent };
  if (existing) {
    if (signature.version !== undefined && existing.version !== signature.version) throw AgreementErrors.signingLinkInvalid('superseded');
    await runAction(tx, origin, agreementLifecycle, existing, 'sign', { ...signer, signedDocumentSha256: existing.documentSha256 });
  } else {
    await createByAction(tx, origin, agreementLifecycle, { from: 'draft' }, 'sign', { id: newId('agreement'), businessId: origin.businessId, livemode: origin.livemode, bookingId: booking.id, ...signer });
  }
  const advanced = await advanceBooking(tx, origin, gated);
  return { booking: advanced.booking, events: ['agreement.signed', ...advanced.events] };
}
