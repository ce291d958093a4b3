import type { BookingFacts } from './booking-state.ts';

/** Unit-test fixtures: a booking ready for pickup, with `overrides`. */
export const bookingFacts = (overrides: Partial<BookingFacts> = {}): BookingFacts => ({
  state: 'ready_for_pickup',
  paymentGate: 'satisfied',
  identityGate: 'satisfied',
  agreementGate: 'satisfied',
  depositGate: 'satisfied',
  insuranceGate: 'not_required',
  pickedUpAt: null,
  ...overrides,
});

/** The error `fn` throws; fails the test when it throws none. */
export function errorOf(fn: () => unknown): { type: string; code: string; message: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (e) {
    return e as { type: string; code: string; message: string };
  }
  throw new Error('expected an error');
}
