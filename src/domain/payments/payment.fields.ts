import type { Payment } from '../../generated/prisma/client.ts';
import { present, type PublicFields } from '../shared/presenter.ts';
import { paymentMachine } from './payment-state.ts';

export const PAYMENT_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  state: { kind: { enum: 'PaymentState' } },
  amountCents: { kind: 'int' },
  amountRefundedCents: { kind: 'int' },
  currency: { kind: 'string' },
  failureCode: { kind: 'string', nullable: true },
  failureMessage: { kind: 'string', nullable: true },
  createdAt: { kind: 'datetime' },
};

export const TRANSACTION_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  chargeId: { kind: 'id', nullable: true },
  refundedTransactionId: { kind: 'id', nullable: true, description: "A refund of an extension's charge (a cancellation gives it back by the cancellation policy): the extension transaction (txn_...) it refunds. Null for every other movement." },
  type: { kind: { enum: 'TransactionType' } },
  status: { kind: { enum: 'TransactionStatus' } },
  amountCents: { kind: 'int' },
  currency: { kind: 'string' },
  reason: { kind: 'string', nullable: true },
  createdAt: { kind: 'datetime' },
};

export function presentPayment(payment: Payment) {
  return present('payment', PAYMENT_FIELDS, payment, { next_states: paymentMachine.nextStates(payment) });
}
