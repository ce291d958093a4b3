import type { TransactionStatus, TransactionType } from '../../generated/prisma/enums.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';

/** One movement of money on a booking (the contract's `GET .../transactions` lists them). */
export function recordTransaction(
  tx: Db,
  origin: EventOrigin,
  movement: { id?: string; bookingId: string; chargeId?: string; type: TransactionType; status: TransactionStatus; amountCents: number; currency: string; reason?: string | null },
) {
  return tx.transaction.create({ data: { id: newId('transaction'), businessId: origin.businessId, livemode: origin.livemode, ...movement } });
}
