import type { Dispute } from '../../generated/prisma/client.ts';
import { present, type PublicFields } from '../shared/presenter.ts';
import { disputeMachine } from './dispute-state.ts';

export const DISPUTE_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  chargeId: { kind: 'id' },
  bookingId: { kind: 'id', nullable: true },
  state: { kind: { enum: 'DisputeState' } },
  reason: { kind: 'string', nullable: true },
  description: { kind: 'string', nullable: true },
  metadata: { kind: 'json' },
  createdAt: { kind: 'datetime' },
};

export function presentDispute(dispute: Dispute) {
  return present('dispute', DISPUTE_FIELDS, dispute, { next_states: disputeMachine.nextStates(dispute) });
}
