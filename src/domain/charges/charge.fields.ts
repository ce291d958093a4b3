import type { PublicFields } from '../shared/presenter.ts';

export const CHARGE_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  customerId: { kind: 'id' },
  type: { kind: { enum: 'ChargeType' } },
  state: { kind: { enum: 'ChargeState' } },
  amountCents: { kind: 'int' },
  currency: { kind: 'string' },
  description: { kind: 'string', nullable: true },
  failureCode: { kind: 'string', nullable: true },
  metadata: { kind: 'json' },
  createdAt: { kind: 'datetime' },
};
