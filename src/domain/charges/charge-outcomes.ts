import type { Charge } from '../../generated/prisma/client.ts';
import { flagProblemIfAllowed } from '../bookings/booking-lifecycle.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/presenter.ts';
import { CHARGE_ACTIONS } from './charge-state.ts';
import { applyChargeAction } from './charge-transitions.ts';
import { DISPUTE_FIELDS } from './dispute.fields.ts';

/** What a charge step did: the charge after it, and the events emitted, in order. */
export interface ChargeOutcome {
  charge: Charge;
  events: string[];
}

function chargeTransaction(tx: Db, origin: EventOrigin, charge: Charge, status: 'succeeded' | 'failed') {
  return tx.transaction.create({
    data: { id: newId('transaction'), businessId: origin.businessId, livemode: origin.livemode, bookingId: charge.bookingId, chargeId: charge.id, type: 'charge', status, amountCents: charge.amountCents, currency: charge.currency },
  });
}

/** The charge was collected: a `charge` transaction and `charge.succeeded`. */
export async function recordChargeSuccess(tx: Db, origin: EventOrigin, charge: Charge): Promise<ChargeOutcome> {
  const collected = await applyChargeAction(tx, origin, charge, 'succeed', { failureCode: null });
  await chargeTransaction(tx, origin, collected, 'succeeded');
  return { charge: collected, events: [CHARGE_ACTIONS.succeed.event] };
}

/** Collection failed: `charge.failed`, and the booking needs a human (`problem`, CONTRACT.md "Booking"). */
export async function recordChargeFailure(tx: Db, origin: EventOrigin, charge: Charge, failureCode: string): Promise<ChargeOutcome> {
  const failed = await applyChargeAction(tx, origin, charge, 'fail', { failureCode });
  await chargeTransaction(tx, origin, failed, 'failed');
  const booking = await tx.booking.findUniqueOrThrow({ where: { id: charge.bookingId } });
  const flagged = await flagProblemIfAllowed(tx, origin, booking);
  return { charge: failed, events: [CHARGE_ACTIONS.fail.event, ...flagged.events] };
}

/** The customer contests the charge: an open dispute, the charge `disputed`, `dispute.created`. */
export async function openDispute(tx: Db, origin: EventOrigin, charge: Charge, input: { reason: string; metadata: Record<string, string> }) {
  await applyChargeAction(tx, origin, charge, 'dispute');
  const dispute = await tx.dispute.create({
    data: { id: newId('dispute'), businessId: origin.businessId, livemode: origin.livemode, chargeId: charge.id, reason: input.reason, metadata: input.metadata },
  });
  await recordEvent(tx, origin, { type: 'dispute.created', bookingId: charge.bookingId, object: present('dispute', DISPUTE_FIELDS, dispute) });
  return dispute;
}
