import { CommonErrors } from '../shared/common.errors.ts';
import { z } from 'zod';
import { insertBooking } from '../bookings/create-booking.ts';
import { BookingErrors } from '../bookings/booking.errors.ts';
import { VehicleErrors } from '../vehicles/vehicle.errors.ts';
import { customerInput } from '../customers/customer-input.ts';
import type { DomainContext } from '../shared/context.ts';
import { defineOperation } from '../shared/operation.ts';
import { id, parseInput, timestamp } from '../shared/validation.ts';
import { insertVehicle, type VehicleValues } from '../vehicles/create-vehicle.ts';
import { assertNotInPast, checkRentalPeriod } from '../vehicles/rental-period.ts';
import type { BookingSimulation } from './sandbox-simulation.ts';

/** What POST /v1/test/bookings makes when the request names no vehicle or customer. */
export const SANDBOX_VEHICLE: VehicleValues = {
  name: 'Sandbox Toyota Corolla',
  make: 'Toyota',
  model: 'Corolla',
  year: 2024,
  dailyRateCents: 4900,
  depositCents: 25000,
  includedMiles: 200,
  extraMileFeeCents: 35,
  unlimitedMilesDailyCents: 1500,
  deliveryOptions: [],
  accessMethod: 'in_person',
  minimumAge: 21,
  photos: [],
  features: [],
  metadata: {},
};
const SANDBOX_CUSTOMER = parseInput(customerInput, { name: 'Test Customer', email: 'customer@example.com', phone: '+1 512 555 0100' });

const DEFAULT_LEAD_MS = 3_600_000;
const DEFAULT_DAYS = 3;

const testBookingInput = z
  .object({
    vehicleId: id('A vehicle of the sandbox; a new one is made when absent.').nullish(),
    customer: customerInput.nullish(),
    startAt: timestamp('Default: the next minute an hour from now.').nullish(),
    endAt: timestamp('Default: three days after start_at.').nullish(),
    unlimitedMiles: z.boolean().nullish().meta({ description: 'Book with unlimited miles.' }),
  })
  .meta({ id: 'TestBookingInput', description: 'Everything is optional: a vehicle and a customer are made, and the period starts in about an hour for 3 days.' });

/**
 * POST /v1/test/bookings: a booking made exactly as POST /v1/bookings makes one (same rules
 * and `booking.created`), with what the request leaves out filled in.
 */
export const createTestBooking = defineOperation({
  name: 'testCreateBooking',
  summary: 'Create a test booking',
  description: 'Sandbox: creates a test booking (emits booking.created).',
  access: { permission: 'bookings:write', sandbox: true },
  args: z.object({ input: testBookingInput.nullish() }),
  errors: [BookingErrors.vehicleUnavailable, VehicleErrors.archived, CommonErrors.resourceMissing],
  example: { input: { unlimitedMiles: true } },
  async run(ctx: DomainContext, args): Promise<BookingSimulation> {
    const input = args.input ?? {};
    const startAt = input.startAt ?? nextMinute(new Date(ctx.now().getTime() + DEFAULT_LEAD_MS));
    const endAt = input.endAt ?? new Date(startAt.getTime() + DEFAULT_DAYS * 86_400_000);
    // Checked before a vehicle is made, so a bad period leaves no stray vehicle behind.
    parseInput(z.object({ startAt: z.date(), endAt: z.date() }).superRefine((p, c) => checkRentalPeriod(p, c)), { startAt, endAt });
    assertNotInPast(ctx, startAt);
    const vehicleId = input.vehicleId ?? (await insertVehicle(ctx, SANDBOX_VEHICLE)).id;
    const booking = await insertBooking(ctx, {
      vehicleId,
      customer: input.customer ?? SANDBOX_CUSTOMER,
      startAt,
      endAt,
      unlimitedMiles: input.unlimitedMiles ?? false,
      metadata: {},
    });
    return { id: booking.id, state: booking.state, event: 'booking.created', events: ['booking.created'], chargeIds: [], mileage: null };
  },
  // The booking the first run made (a vehicle it made alone is not enough: the booking is made then).
  async replay(ctx, _args, _extras, effect) {
    const [bookingId] = effect.created.Booking ?? [];
    const booking = bookingId ? await ctx.db.booking.findUnique({ where: { id: bookingId } }) : null;
    return booking ? { id: booking.id, state: booking.state, event: 'booking.created', events: ['booking.created'], chargeIds: [], mileage: null } : undefined;
  },
});

function nextMinute(d: Date): Date {
  return new Date(Math.ceil(d.getTime() / 60_000) * 60_000);
}
