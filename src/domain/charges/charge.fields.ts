import type { Charge } from '../../generated/prisma/client.ts';
import { present, type PublicFields } from '../shared/presenter.ts';
import { chargeMachine } from './charge-state.ts';

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

export function presentCharge(charge: Charge) {
  return present('charge', CHARGE_FIELDS, charge, { next_states: chargeMachine.nextStates(charge) });
}
