import type { PublicFields } from '../shared/presenter.ts';

export const AGREEMENT_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  bookingId: { kind: 'id' },
  state: { kind: { enum: 'AgreementState' } },
  signedAt: { kind: 'datetime', nullable: true },
  createdAt: { kind: 'datetime' },
};
