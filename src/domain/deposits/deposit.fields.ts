import { present, type PublicFields } from '../shared/presenter.ts';
import { depositMachine, type DepositRecord } from './deposit-state.ts';

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

export function presentDeposit(deposit: DepositRecord) {
  return present('deposit', DEPOSIT_FIELDS, deposit, { next_states: depositMachine.nextStates({ state: deposit.state, bookingState: deposit.bookingState }) });
}
