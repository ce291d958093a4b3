import type { Charge, Prisma } from '../../generated/prisma/client.ts';
import type { ChargeType } from '../../generated/prisma/enums.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { conflict } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/presenter.ts';
import { CHARGE_FIELDS } from './charge.fields.ts';
import { chargeTransition, type ChargeAction } from './charge-state.ts';

/** Disputes that still lock collection on a booking (SPEC.md gating rule 4). */
export function openDisputesOf(tx: Db, bookingId: string): Promise<number> {
  return tx.dispute.count({ where: { charge: { bookingId }, state: { in: ['open', 'under_review'] } } });
}

/**
 * Run one action of the charge table inside `tx`, like `applyBookingAction`: check it,
 * compare-and-set the state, record the action's event with the charge.
 */
export async function applyChargeAction(tx: Db, origin: EventOrigin, charge: Charge, action: ChargeAction, changes: Prisma.ChargeUpdateManyMutationInput = {}): Promise<Charge> {
  const rule = chargeTransition({ state: charge.state, openDisputes: await openDisputesOf(tx, charge.bookingId) }, action);
  const { count } = await tx.charge.updateMany({ where: { id: charge.id, state: charge.state, updatedAt: charge.updatedAt }, data: { ...changes, state: rule.to } });
  if (count !== 1) throw conflict('invalid_state_transition', 'The charge changed while this request ran. Retry with its current state.');
  const updated = await tx.charge.findUniqueOrThrow({ where: { id: charge.id } });
  if (rule.event) await recordEvent(tx, origin, { type: rule.event, bookingId: charge.bookingId, object: present('charge', CHARGE_FIELDS, updated) });
  return updated;
}

/** A new post-trip charge on a booking, pending collection; emits `charge.created`. */
export async function insertCharge(
  tx: Db,
  origin: EventOrigin,
  input: { bookingId: string; customerId: string; type: ChargeType; amountCents: number; currency: string; description: string },
): Promise<Charge> {
  const charge = await tx.charge.create({ data: { id: newId('charge'), businessId: origin.businessId, livemode: origin.livemode, ...input } });
  await recordEvent(tx, origin, { type: 'charge.created', bookingId: charge.bookingId, object: present('charge', CHARGE_FIELDS, charge) });
  return charge;
}
