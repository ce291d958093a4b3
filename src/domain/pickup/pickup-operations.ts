import { z } from 'zod';
import { bookingStep } from '../bookings/booking-lifecycle.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { BookingErrors } from '../bookings/booking.errors.ts';
import { readBooking } from '../bookings/get-booking.ts';
import type { DomainContext } from '../shared/context.ts';
import { originOf } from '../events/event.service.ts';
import { FileErrors } from '../files/file.errors.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { defineOperation } from '../shared/operation.ts';

/** The pickup record as it is: a retry's answer once the first run committed. */
const replayPickup = async (ctx: DomainContext, args: { bookingId: string }) => pickupOf(await readBooking(ctx, args.bookingId));
import { id } from '../shared/validation.ts';
import { odometer, pickupOf, pickupReadiness, recordTripPhotos, tripPhotosInput, type Pickup, type PickupReadiness } from './pickup.ts';

const bookingId = id('The booking (bk_...).');
const EXAMPLE_BOOKING = 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x';

export const getPickupReadiness = defineOperation({
  name: 'pickupReadiness',
  summary: 'Retrieve readiness gates',
  description:
    "Whether the rental can start now, gate by gate: payment, identity, agreement, deposit, insurance (each satisfied, not_required, pending or failed), confirmation (the booking is confirmed), and the pickup window (pickup_rules.earliest_minutes_before_start before start_at). `missing` says what each unmet gate waits for; `ready` is true when none does. POST .../pickup/complete refuses with booking_not_ready while any is unmet.",
  access: { permission: 'pickup:read' },
  args: z.object({ bookingId }),
  errors: [],
  example: { bookingId: EXAMPLE_BOOKING },
  async run(ctx, args): Promise<PickupReadiness> {
    return pickupReadiness(ctx, await readBooking(ctx, args.bookingId));
  },
});

export const addPickupPhotos = defineOperation({
  name: 'addPickupPhotos',
  summary: 'Submit release photos',
  description:
    "Records photos of the vehicle as it is handed over, by slot, each an uploaded image (POST /v1/files/upload-url first). Allowed once the booking is paid and before the rental starts (booked, confirmed, ready_for_pickup). Answers the pickup record.",
  access: { permission: 'pickup:write' },
  args: z.object({ bookingId, input: tripPhotosInput }),
  errors: [CommonErrors.invalidStateTransition, FileErrors.notUsable],
  example: { bookingId: EXAMPLE_BOOKING, input: { photos: [{ slot: 'front', fileId: 'file_01jd3m4k5n6p7q8r9s0t1v2w3x' }] } },
  replay: replayPickup,
  async run(ctx, args): Promise<Pickup> {
    const booking = await readBooking(ctx, args.bookingId);
    bookingMachine.check(booking, 'record_pickup');
    await ctx.db.$transaction((tx) => recordTripPhotos(tx, booking, 'pickup', args.input.photos));
    return pickupOf(booking);
  },
});

export const recordPickupMileage = defineOperation({
  name: 'recordPickupMileage',
  summary: 'Record mileage out',
  description: "Records the odometer as the vehicle is handed over (mileage_out, an integer of at least 0); recorded again, the last reading counts. Allowed once the booking is paid and before the rental starts. Answers the pickup record.",
  access: { permission: 'pickup:write' },
  args: z.object({ bookingId, input: z.object({ mileageOut: odometer('The odometer reading at pickup.') }).meta({ id: 'PickupMileageInput' }) }),
  errors: [CommonErrors.invalidStateTransition],
  example: { bookingId: EXAMPLE_BOOKING, input: { mileageOut: 48213 } },
  replay: replayPickup,
  async run(ctx, args): Promise<Pickup> {
    const booking = await readBooking(ctx, args.bookingId);
    const recorded = await ctx.db.$transaction((tx) => applyBookingAction(tx, originOf(ctx), booking, 'record_pickup', { mileageOut: args.input.mileageOut }));
    return pickupOf(recorded);
  },
});

export const completePickup = defineOperation({
  name: 'completePickup',
  summary: 'Complete an eligible pickup',
  description:
    "Hands the vehicle over: the rental starts (active, rental.started). Every readiness gate must be met, the pickup window included; otherwise 400 booking_not_ready lists the unmet gates (never bypassed). mileage_out may be given here, else the one recorded with POST .../pickup/mileage is used; without either, 422.",
  access: { permission: 'pickup:write' },
  args: z.object({ bookingId, input: z.object({ mileageOut: odometer('The odometer reading at pickup, if not recorded yet.').nullish() }).meta({ id: 'CompletePickupInput' }).nullish() }),
  errors: [CommonErrors.invalidStateTransition, BookingErrors.notReady],
  example: { bookingId: EXAMPLE_BOOKING, input: { mileageOut: 48213 } },
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    const readiness = await pickupReadiness(ctx, booking);
    const unmet = readiness.gates.filter((g) => g.missing !== null);
    // A booking in any state the table cannot start from is a state conflict, not a readiness one.
    if (unmet.length && bookingMachine.actions.start_rental.from.includes(booking.state)) {
      throw BookingErrors.notReady(unmet.map((g) => ({ gate: g.name, reason: g.missing! })));
    }
    const mileageOut = args.input?.mileageOut ?? booking.mileageOut;
    if (mileageOut === null && bookingMachine.can(booking, 'start_rental')) throw CommonErrors.parameterMissing('mileage_out');
    await ctx.db.$transaction((tx) => bookingStep(tx, originOf(ctx), booking, 'start_rental', { mileageOut, pickedUpAt: ctx.now() }));
    return readBooking(ctx, booking.id, query);
  },
});
