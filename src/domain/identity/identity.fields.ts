import type { PublicFields } from '../shared/presenter.ts';

export const IDENTITY_VERIFICATION_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  state: { kind: { enum: 'CheckState' } },
  failureCode: { kind: 'string', nullable: true },
  createdAt: { kind: 'datetime' },
};
