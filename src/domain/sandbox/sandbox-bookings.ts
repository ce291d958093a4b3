import { z } from 'zod';
import { authorizeSandbox } from '../access/permissions.ts';
import { createBooking } from '../bookings/booking.service.ts';
import { customerInput } from '../customers/customer.service.ts';
import type { DomainContext } from '../shared/context.ts';
import { parseInput, timestamp } from '../shared/validation.ts';
import { assertNotInPast, createVehicle, rentalPeriod, type CreateVehicleInput } from '../vehicles/vehicle.service.ts';
import type { BookingSimulation } from './sandbox-simulation.ts';

/** What POST /v1/test/bookings makes when the request names no vehicle or customer. */
export const SANDBOX_VEHICLE: CreateVehicleInput = {
  name: 'Sandbox Toyota Corolla',
  make: 'Toyota',
  model: 'Corolla',
  year: 2024,
  dailyRateCents: 4900,
  depositCents: 25000,
  includedMiles: 200,
  extraMileFeeCents: 35,
  unlimitedMilesDailyCents: 1500,
};
export const SANDBOX_CUSTOMER = { name: 'Test Customer', email: 'customer@example.com', phone: '+1 512 555 0100' };

const DEFAULT_LEAD_MS = 3_600_000;
const DEFAULT_DAYS = 3;

const testBookingInput = z.object({
  vehicleId: z.string().min(1).max(100).nullish(),
  customer: customerInput.nullish(),
  startAt: timestamp.nullish(),
  endAt: timestamp.nullish(),
  unlimitedMiles: z.boolean().nullish(),
});

/**
 * POST /v1/test/bookings: a booking made exactly as POST /v1/bookings makes one
 * (`createBooking`, same rules and `booking.created`), with what the request leaves out
 * filled in: a new vehicle, a test customer, a 3-day period starting in about an hour.
 */
export async function createTestBooking(ctx: DomainContext, raw: unknown): Promise<BookingSimulation> {
  authorizeSandbox(ctx.principal, 'bookings:write');
  const input = parseInput(testBookingInput, raw ?? {});
  const startAt = input.startAt ?? nextMinute(new Date(ctx.now().getTime() + DEFAULT_LEAD_MS));
  const endAt = input.endAt ?? new Date(startAt.getTime() + DEFAULT_DAYS * 86_400_000);
  // createBooking checks these again; checking first leaves no stray vehicle behind a bad period.
  parseInput(rentalPeriod, { startAt, endAt });
  assertNotInPast(ctx, startAt);
  const vehicleId = input.vehicleId ?? (await createVehicle(ctx, SANDBOX_VEHICLE)).id;
  const booking = await createBooking(ctx, {
    vehicleId,
    customer: input.customer ?? SANDBOX_CUSTOMER,
    startAt,
    endAt,
    unlimitedMiles: input.unlimitedMiles ?? false,
  });
  return { id: booking.id, state: booking.state, event: 'booking.created', events: ['booking.created'], chargeIds: [], mileage: null };
}

function nextMinute(d: Date): Date {
  return new Date(Math.ceil(d.getTime() / 60_000) * 60_000);
}
