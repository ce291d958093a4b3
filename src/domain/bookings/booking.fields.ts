import type { PublicFields } from '../shared/presenter.ts';
import { present } from '../shared/presenter.ts';
import { storedDayRates } from '../quotes/day-rates.ts';
import { GATE_NAMES, nextStates, type BookingFacts } from './booking-state.ts';

export const BOOKING_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  state: { kind: { enum: 'BookingState' } },
  vehicleId: { kind: 'id' },
  customerId: { kind: 'id' },
  quoteId: { kind: 'id', nullable: true },
  startAt: { kind: 'datetime' },
  endAt: { kind: 'datetime' },
  unlimitedMiles: { kind: 'boolean' },
  days: { kind: 'int' },
  currency: { kind: 'string' },
  dailyRateCents: { kind: 'int' },
  rentalCents: { kind: 'int' },
  unlimitedMilesFeeCents: { kind: 'int' },
  deliveryFeeCents: { kind: 'int' },
  depositCents: { kind: 'int' },
  includedMiles: { kind: 'int', nullable: true, description: 'Total for the period; null with unlimited miles.' },
  extraMileFeeCents: { kind: 'int' },
  totalCents: { kind: 'int' },
  holdExpiresAt: { kind: 'datetime', nullable: true, description: 'Until then a pending_payment booking holds its vehicle.' },
  canceledAt: { kind: 'datetime', nullable: true },
  cancellationReason: { kind: 'string', nullable: true },
  mileageOut: { kind: 'int', nullable: true },
  mileageIn: { kind: 'int', nullable: true },
  metadata: { kind: 'json' },
  createdAt: { kind: 'datetime' },
};

/** The readiness gates of a booking, as one object. */
export function bookingGates(b: BookingFacts) {
  return Object.fromEntries(GATE_NAMES.map((g) => [g, b[`${g}Gate` as const]])) as Record<(typeof GATE_NAMES)[number], string>;
}

/** A booking as its events carry it: the REST shape, its day rates included (`client_secret` is the create answer's alone: null). */
export function presentBooking(row: BookingFacts & Record<string, unknown>) {
  const dayRates = storedDayRates(row.dayRates).map((d) => ({ date: d.date, rule: d.rule, rate_cents: d.rate_cents, season: d.season ?? null }));
  return present('booking', BOOKING_FIELDS, row, { day_rates: dayRates, gates: bookingGates(row), next_states: nextStates(row), client_secret: null });
}
