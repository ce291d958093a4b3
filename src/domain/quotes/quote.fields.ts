import type { PublicFields } from '../shared/presenter.ts';

export const QUOTE_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  vehicleId: { kind: 'id' },
  startAt: { kind: 'datetime' },
  endAt: { kind: 'datetime' },
  unlimitedMiles: { kind: 'boolean' },
  days: { kind: 'int' },
  currency: { kind: 'string' },
  dailyRateCents: { kind: 'int' },
  rentalCents: { kind: 'int' },
  unlimitedMilesFeeCents: { kind: 'int' },
  deliveryFeeCents: { kind: 'int' },
  depositCents: { kind: 'int', description: 'Held apart from the total; not part of total_cents.' },
  includedMiles: { kind: 'int', nullable: true, description: 'Total for the period; null with unlimited miles.' },
  extraMileFeeCents: { kind: 'int' },
  totalCents: { kind: 'int' },
  available: { kind: 'boolean' },
  expiresAt: { kind: 'datetime' },
  metadata: { kind: 'json' },
  createdAt: { kind: 'datetime' },
};
