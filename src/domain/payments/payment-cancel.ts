import type { Payment } from '../../generated/prisma/client.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/presenter.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import { DEPOSIT_FIELDS, PAYMENT_FIELDS } from './payment.fields.ts';

/** On cancellation: refund what is due, or stop collecting a payment that never succeeded. */
export async function settlePaymentOnCancel(tx: Db, origin: EventOrigin, payment: Payment, refundCents: number): Promise<void> {
  if (refundCents > 0) {
    const refunded = payment.amountRefundedCents + refundCents;
    const updated = await tx.payment.update({
      where: { id: payment.id },
      data: { amountRefundedCents: refunded, state: refunded >= payment.amountCents ? 'refunded' : 'partially_refunded' },
    });
    await tx.transaction.create({
      data: { id: newId('transaction'), businessId: origin.businessId, livemode: origin.livemode, bookingId: payment.bookingId, type: 'refund', status: 'succeeded', amountCents: refundCents, currency: payment.currency },
    });
    await recordEvent(tx, origin, { type: 'payment.refunded', bookingId: payment.bookingId, object: present('payment', PAYMENT_FIELDS, updated) });
  } else if (['requires_payment', 'checkout_started', 'processing'].includes(payment.state)) {
    await tx.payment.update({ where: { id: payment.id }, data: { state: 'canceled' } });
  }
}

/** A secured deposit goes back to the customer when the booking is canceled. */
export async function releaseDepositOnCancel(tx: Db, origin: EventOrigin, bookingId: string): Promise<void> {
  const deposit = await tx.deposit.findUnique({ where: { bookingId } });
  if (!deposit || deposit.state !== 'secured') return;
  const released = await tx.deposit.update({ where: { id: deposit.id }, data: { state: 'released', releasedAt: new Date() } });
  await tx.transaction.create({
    data: { id: newId('transaction'), businessId: origin.businessId, livemode: origin.livemode, bookingId, type: 'deposit_release', status: 'succeeded', amountCents: deposit.amountCents, currency: deposit.currency },
  });
  await recordEvent(tx, origin, { type: 'deposit.released', bookingId, object: present('deposit', DEPOSIT_FIELDS, released) });
}
