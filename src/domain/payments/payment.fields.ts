import type { PublicFields } from '../shared/presenter.ts';

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

export const DEPOSIT_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  state: { kind: { enum: 'DepositState' } },
  amountCents: { kind: 'int' },
  capturedCents: { kind: 'int' },
  currency: { kind: 'string' },
  securedAt: { kind: 'datetime', nullable: true },
  releasedAt: { kind: 'datetime', nullable: true },
  createdAt: { kind: 'datetime' },
};

export const TRANSACTION_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  chargeId: { kind: 'id', nullable: true },
  type: { kind: { enum: 'TransactionType' } },
  status: { kind: { enum: 'TransactionStatus' } },
  amountCents: { kind: 'int' },
  currency: { kind: 'string' },
  createdAt: { kind: 'datetime' },
};
