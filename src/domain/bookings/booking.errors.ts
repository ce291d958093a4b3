import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of the booking aggregate (the spec's gating rules, the contract's "Booking"). */
export const BookingErrors = errorCatalogue('booking', {
  notReady: {
    type: 'invalid_request',
    code: 'booking_not_ready',
    description:
      "The rental cannot start (or the vehicle be released) while a readiness gate is unmet: `unmet_gates` lists them (payment, identity, agreement, deposit, insurance, confirmation); the message says why each is unmet.",
    details: ['unmet_gates'],
    build: (unmet: { gate: string; reason: string }[]) => ({
      message: `The booking is not ready: ${unmet.map((u) => u.reason).join('; ')}.`,
      details: { unmet_gates: unmet.map((u) => u.gate) },
    }),
  },
  vehicleUnavailable: {
    type: 'conflict',
    code: 'vehicle_unavailable',
    description: 'The vehicle is booked for part of the period. Two overlapping bookings of one vehicle can never both succeed.',
    build: (message: string) => ({ message }),
  },
});
