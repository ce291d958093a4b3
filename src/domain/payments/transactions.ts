import type { TransactionStatus, TransactionType } from '../../generated/prisma/enums.ts';
import type { EventOrigin } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';

/** One movement of money on a booking (the contract's `GET .../transactions` lists them). */
export function recordTransaction(
  tx: Db,
  origin: EventOrigin,
  movement: { id?: string; bookingId: string; chargeId?: string; refundedTransactionId?: string; type: TransactionType; status: TransactionStatus; amountCents: number; currency: string; reason?: string | null },
) {
  return tx.transaction.create({ data: { id: newId('transaction'), businessId: origin.businessId, livemode: origin.livemode, ...movement } });
}

/**
 * A pending movement (reserved before the processor was asked) takes its outcome, once;
 * `processorId`: the processor's id of the money it moved, for a later refund of it.
 */
export async function settleTransaction(tx: Db, transactionId: string, status: 'succeeded' | 'failed', processorId?: string): Promise<void> {
  const { count } = await tx.transaction.updateMany({ where: { id: transactionId, status: 'pending' }, data: { status, ...(processorId ? { processorId } : {}) } });
  if (count !== 1) throw CommonErrors.internal();
}
