import type { Charge } from '../../generated/prisma/client.ts';
import type { ChargeType } from '../../generated/prisma/enums.ts';
import { flagProblemIfAllowed } from '../bookings/booking-lifecycle.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import { recordTransaction } from '../payments/transactions.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { chargeLifecycle } from './charge-state.ts';
import { presentCharge } from './charge.fields.ts';

/** What a charge step did: the charge after it, and the events emitted, in order. */
export interface ChargeOutcome {
  charge: Charge;
  events: string[];
}

/** A new post-trip charge on a booking, pending collection; emits `charge.created`. */
export async function insertCharge(
  tx: Db,
  origin: EventOrigin,
  input: { bookingId: string; customerId: string; type: ChargeType; amountCents: number; currency: string; description: string | null; metadata?: Record<string, string> },
): Promise<Charge> {
  const charge = await tx.charge.create({ data: { id: newId('charge'), businessId: origin.businessId, livemode: origin.livemode, ...input } });
  await recordEvent(tx, origin, { type: 'charge.created', bookingId: charge.bookingId, object: presentCharge(charge) });
  return charge;
}

/** The charge was collected: a `charge` transaction and `charge.succeeded`. */
export async function recordChargeSuccess(tx: Db, origin: EventOrigin, charge: Charge, processorPaymentId: string | null = null): Promise<ChargeOutcome> {
  const collected = await runAction(tx, origin, chargeLifecycle, charge, 'succeed', { failureCode: null, processorPaymentId });
  await recordTransaction(tx, origin, { bookingId: charge.bookingId, chargeId: charge.id, type: 'charge', status: 'succeeded', amountCents: charge.amountCents, currency: charge.currency });
  return { charge: collected, events: ['charge.succeeded'] };
}

/** Collection failed: `charge.failed`, and the booking needs a human (`problem`, the contract's "Booking"). */
export async function recordChargeFailure(tx: Db, origin: EventOrigin, charge: Charge, failureCode: string): Promise<ChargeOutcome> {
  const failed = await runAction(tx, origin, chargeLifecycle, charge, 'fail', { failureCode });
  await recordTransaction(tx, origin, { bookingId: charge.bookingId, chargeId: charge.id, type: 'charge', status: 'failed', amountCents: charge.amountCents, currency: charge.currency });
  const booking = await tx.booking.findUniqueOrThrow({ where: { id: charge.bookingId } });
  const flagged = await flagProblemIfAllowed(tx, origin, booking);
  return { charge: failed, events: ['charge.failed', ...flagged.events] };
}
