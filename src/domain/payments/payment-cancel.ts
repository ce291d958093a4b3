import type { Payment } from '../../generated/prisma/client.ts';
import type { BusinessSettings } from '../business/business-settings.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { runAction } from '../shared/lifecycle.ts';
import { paymentLifecycle, paymentMachine } from './payment-state.ts';

/** What the cancellation policy refunds (the contract's "Money"). */
export function refundDue(payment: Pick<Payment, 'state' | 'amountCents' | 'amountRefundedCents'>, startAt: Date, now: Date, settings: Pick<BusinessSettings, 'cancellation_window_hours' | 'late_cancellation_refund_percent'>): number {
  if (payment.state !== 'succeeded' && payment.state !== 'partially_refunded') return 0;
  const refundable = payment.amountCents - payment.amountRefundedCents;
  const inWindow = startAt.getTime() - now.getTime() >= settings.cancellation_window_hours * 3_600_000;
  return inWindow ? refundable : Math.floor((refundable * settings.late_cancellation_refund_percent) / 100);
}

/** On cancellation, a payment that never succeeded is not collected any more. */
export async function stopPaymentOnCancel(tx: Db, origin: EventOrigin, payment: Payment): Promise<void> {
  if (paymentMachine.can(payment, 'cancel')) await runAction(tx, origin, paymentLifecycle, payment, 'cancel');
}
