import type { PublicFields } from '../shared/presenter.ts';

export const CUSTOMER_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  name: { kind: 'string' },
  email: { kind: 'string', nullable: true },
  phone: { kind: 'string', nullable: true },
  metadata: { kind: 'json' },
  createdAt: { kind: 'datetime' },
};
