import type { PublicFields } from '../shared/presenter.ts';

export const DISPUTE_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  chargeId: { kind: 'id' },
  state: { kind: { enum: 'DisputeState' } },
  reason: { kind: 'string', nullable: true },
  metadata: { kind: 'json' },
  createdAt: { kind: 'datetime' },
};
