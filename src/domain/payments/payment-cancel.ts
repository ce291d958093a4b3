import type { Booking, Payment } from '../../generated/prisma/client.ts';
import { depositLifecycle, depositMachine } from '../deposits/deposit-state.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { runAction } from '../shared/lifecycle.ts';
import { recordTransaction } from './transactions.ts';
import { paymentLifecycle, paymentMachine } from './payment-state.ts';

/** On cancellation: refund what is due (`payment.refunded`), or stop collecting a payment that never succeeded. */
export async function settlePaymentOnCancel(tx: Db, origin: EventOrigin, payment: Payment, refundCents: number, now: Date): Promise<void> {
  if (refundCents > 0) {
    const refunded = payment.amountRefundedCents + refundCents;
    await runAction(tx, origin, paymentLifecycle, payment, refunded >= payment.amountCents ? 'refund_fully' : 'refund_partially', { amountRefundedCents: refunded });
    await recordTransaction(tx, origin, { bookingId: payment.bookingId, type: 'refund', status: 'succeeded', amountCents: refundCents, currency: payment.currency });
  } else if (paymentMachine.can(payment, 'cancel')) {
    await runAction(tx, origin, paymentLifecycle, payment, 'cancel');
  }
}

/** A secured deposit goes back to the customer when the booking is canceled (`deposit.released`). */
export async function releaseDepositOnCancel(tx: Db, origin: EventOrigin, booking: Booking, now: Date): Promise<void> {
  const deposit = await tx.deposit.findUnique({ where: { bookingId: booking.id } });
  if (!deposit) return;
  const record = { ...deposit, bookingState: booking.state };
  if (!depositMachine.can(record, 'release')) return;
  await runAction(tx, origin, depositLifecycle, record, 'release', { releasedAt: now });
  await recordTransaction(tx, origin, { bookingId: booking.id, type: 'deposit_release', status: 'succeeded', amountCents: deposit.amountCents, currency: deposit.currency });
}
