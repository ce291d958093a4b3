import type { Payment } from '../../generated/prisma/client.ts';
import type { BusinessSettings } from '../business/business-settings.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { runAction } from '../shared/lifecycle.ts';
import { paymentLifecycle, paymentMachine } from './payment-state.ts';

type RefundPolicy = Pick<BusinessSettings, 'cancellation_window_hours' | 'late_cancellation_refund_percent'>;

/**
 * The cancellation policy (the contract's "Money"), the one rule for every sum a booking
 * collected (its payment, each extension's charge): in full at least
 * `cancellation_window_hours` before `start_at`, else `late_cancellation_refund_percent` of
 * what is still refundable.
 */
export function policyRefund(refundable: number, startAt: Date, now: Date, settings: RefundPolicy): number {
  const inWindow = startAt.getTime() - now.getTime() >= settings.cancellation_window_hours * 3_600_000;
  return inWindow ? refundable : Math.floor((refundable * settings.late_cancellation_refund_percent) / 100);
}

/** What the cancellation policy refunds of the payment. */
export function refundDue(payment: Pick<Payment, 'state' | 'amountCents' | 'amountRefundedCents'>, startAt: Date, now: Date, settings: RefundPolicy): number {
  if (payment.state !== 'succeeded' && payment.state !== 'partially_refunded') return 0;
  return policyRefund(payment.amountCents - payment.amountRefundedCents, startAt, now, settings);
}

/** On cancellation, a payment that never succeeded is not collected any more. */
export async function stopPaymentOnCancel(tx: Db, origin: EventOrigin, payment: Payment): Promise<void> {
  if (paymentMachine.can(payment, 'cancel')) await runAction(tx, origin, paymentLifecycle, payment, 'cancel');
}
