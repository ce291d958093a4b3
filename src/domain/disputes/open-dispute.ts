import type { Charge } from '../../generated/prisma/client.ts';
import { chargeLifecycle } from '../charges/charge-state.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { presentDispute } from './dispute.fields.ts';

/** The customer contests a charge: the charge is `disputed` (locked), an open dispute is made, `dispute.created`. */
export async function openDispute(tx: Db, origin: EventOrigin, charge: Charge, input: { reason: string; description?: string | null; metadata: Record<string, string> }) {
  await runAction(tx, origin, chargeLifecycle, charge, 'dispute');
  const dispute = await tx.dispute.create({
    data: {
      id: newId('dispute'), businessId: origin.businessId, livemode: origin.livemode, chargeId: charge.id, bookingId: charge.bookingId,
      reason: input.reason, description: input.description ?? null, metadata: input.metadata,
    },
  });
  await recordEvent(tx, origin, { type: 'dispute.created', bookingId: charge.bookingId, object: presentDispute(dispute) });
  return dispute;
}
