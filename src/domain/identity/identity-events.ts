import type { OwnerLookup } from '../../db/owner-lookup.ts';
import type { TenantDbFactory } from '../../db/tenant-db.ts';
import { isUniqueViolation } from '../../db/database-errors.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import type { EventOrigin } from '../events/event.service.ts';
import { recordIdentityRejected, recordIdentityVerified } from './identity-checks.ts';
import { identityMachine } from './identity-state.ts';

/**
 * What an identity provider's event says about a verification, in the domain's terms (the
 * adapter's webhook translates its own events into this). The sandbox's identity simulations
 * apply the same verdicts (recordIdentityVerified, recordIdentityRejected).
 */
export interface IdentityEventInput {
  kind: 'identity';
  /** The provider's event id: an event is applied once, however often it is delivered. */
  id: string;
  processor: string;
  type: string;
  /** The provider's session the event is about (vs_...). */
  sessionId: string;
  says: { outcome: 'verified' } | { outcome: 'rejected'; failureCode: string } | { outcome: 'nothing'; why: string };
}

/**
 * Apply a provider's verdict to the verification whose session it names, in that
 * verification's business and environment (the one question asked across businesses is whose
 * session it is). The event's record and the change it causes commit together, so a
 * redelivery, even concurrent, changes nothing; a verdict that no longer fits (a newer
 * session, a booking past pickup, a verdict already given) is recorded as ignored, with why.
 */
export async function applyIdentityEvent(deps: { owners: OwnerLookup; tenantDb: TenantDbFactory; requestId: string }, event: IdentityEventInput): Promise<{ outcome: string; bookingId: string | null }> {
  if (!event.sessionId) return { outcome: 'ignored: the event names no verification session', bookingId: null };
  const unknown = { outcome: 'ignored: no identity verification of this service has this session', bookingId: null };
  const owner = await deps.owners.resolveOwner('identity_session', event.sessionId);
  if (!owner) return unknown;
  const tenant = { businessId: owner.businessId, livemode: owner.livemode };
  const origin: EventOrigin = { ...tenant, requestId: deps.requestId, idempotencyKey: null };
  const db = deps.tenantDb(tenant);
  // The look-up answers whose it is and nothing more: the booking it concerns is read in the owner's scope.
  const session = await db.identityVerification.findUnique({ where: { providerSessionId: event.sessionId }, select: { bookingId: true } });
  if (!session) return unknown;
  try {
    return await db.$transaction(async (tx) => {
      if (await tx.processorEvent.findUnique({ where: { id: event.id }, select: { id: true } })) return { outcome: 'duplicate', bookingId: session.bookingId };
      // Recorded first: a concurrent delivery of the same event waits here, then finds it.
      await tx.processorEvent.create({ data: { id: event.id, ...tenant, processor: event.processor, type: event.type, objectId: event.sessionId, outcome: 'applying' } });
      const booking = await tx.booking.findUniqueOrThrow({ where: { id: session.bookingId } });
      const verification = await tx.identityVerification.findUniqueOrThrow({ where: { bookingId: booking.id } });
      const says = event.says;
      let outcome = 'applied';
      if (says.outcome === 'nothing') outcome = `ignored: ${says.why}`;
      else if (verification.providerSessionId !== event.sessionId) outcome = 'ignored: the verification has moved on to another session';
      else if (says.outcome === 'verified' && identityMachine.can(verification, 'verify') && bookingMachine.can(booking, 'verify_identity')) await recordIdentityVerified(tx, origin, booking);
      else if (says.outcome === 'rejected' && identityMachine.can(verification, 'reject') && bookingMachine.can(booking, 'reject_identity')) await recordIdentityRejected(tx, origin, booking, says.failureCode);
      else outcome = `ignored: the verification is '${verification.state}' and the booking '${booking.state}'`;
      await tx.processorEvent.update({ where: { id: event.id }, data: { outcome } });
      return { outcome, bookingId: booking.id };
    });
  } catch (err) {
    // The same event, applied by a concurrent delivery that committed first.
    if (isUniqueViolation(err)) return { outcome: 'duplicate', bookingId: session.bookingId };
    throw err;
  }
}
