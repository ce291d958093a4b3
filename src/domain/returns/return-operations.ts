import { z } from 'zod';
import { bookingMachine } from '../bookings/booking-state.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { FileErrors } from '../files/file.errors.ts';
import { odometer, recordTripPhotos, tripPhotosInput } from '../pickup/pickup.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { answersAs, defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { computeMileage } from './mileage.ts';
import { returnView, stepReturn, type ReturnView } from './return-record.ts';
import { submitReturn } from './return-submission.ts';

const bookingId = id('The booking (bk_...).');
const EXAMPLE_BOOKING = 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x';

/** An odometer reading at return, refused (422 mileage_in) below the reading at pickup. */
function checkMileageIn(booking: { mileageOut: number | null; includedMiles: number | null; extraMileFeeCents: number; unlimitedMiles: boolean }, mileageIn: number) {
  if (booking.mileageOut !== null) computeMileage({ ...booking, mileageOut: booking.mileageOut, mileageIn });
}

export const getReturn = defineOperation({
  name: 'bookingReturn',
  summary: 'Retrieve return state',
  description:
    "The booking's return: its state (not_started, in_progress, submitted, completed), the odometer readings and, once both exist, the mileage object (miles_used, over_miles beyond the included total, mileage_fee_cents), with the photos taken.",
  access: { permission: 'returns:read' },
  args: z.object({ bookingId }),
  errors: [],
  example: { bookingId: EXAMPLE_BOOKING },
  async run(ctx, args): Promise<ReturnView> {
    const booking = await readBooking(ctx, args.bookingId);
    return returnView(booking, await ctx.db.vehicleReturn.findUnique({ where: { bookingId: booking.id } }));
  },
});

export const startReturn = defineOperation({
  name: 'startReturn',
  summary: 'Open the return flow',
  description: 'Opens the return of a vehicle that is out (active or late): the return is in_progress, ready for photos and the odometer. Opening it twice is 409.',
  access: { permission: 'returns:write' },
  args: z.object({ bookingId }),
  errors: [CommonErrors.invalidStateTransition],
  example: { bookingId: EXAMPLE_BOOKING },
  replay: answersAs(getReturn),
  async run(ctx, args): Promise<ReturnView> {
    const booking = await readBooking(ctx, args.bookingId);
    bookingMachine.check(booking, 'record_return');
    const record = await ctx.db.$transaction((tx) => stepReturn(tx, originOf(ctx), booking, 'start', { startedAt: ctx.now() }));
    return returnView(booking, record);
  },
});

export const addReturnPhotos = defineOperation({
  name: 'addReturnPhotos',
  summary: 'Submit return photos',
  description: 'Records photos of the vehicle as it comes back, by slot, each an uploaded image, while the vehicle is out (active or late). Answers the return.',
  access: { permission: 'returns:write' },
  args: z.object({ bookingId, input: tripPhotosInput }),
  errors: [CommonErrors.invalidStateTransition, FileErrors.notUsable],
  example: { bookingId: EXAMPLE_BOOKING, input: { photos: [{ slot: 'rear', fileId: 'file_01jd3m4k5n6p7q8r9s0t1v2w3x' }] } },
  replay: answersAs(getReturn),
  async run(ctx, args): Promise<ReturnView> {
    const booking = await readBooking(ctx, args.bookingId);
    bookingMachine.check(booking, 'record_return');
    await ctx.db.$transaction((tx) => recordTripPhotos(tx, booking, 'return', args.input.photos));
    return returnView(booking, await ctx.db.vehicleReturn.findUnique({ where: { bookingId: booking.id } }));
  },
});

export const recordReturnMileage = defineOperation({
  name: 'recordReturnMileage',
  summary: 'Record mileage in',
  description: "Records the odometer as the vehicle comes back (mileage_in); below the reading at pickup it is 422. The answer's mileage object shows the miles used, those over the included total and the fee they will cost.",
  access: { permission: 'returns:write' },
  args: z.object({ bookingId, input: z.object({ mileageIn: odometer('The odometer reading at return.') }).meta({ id: 'ReturnMileageInput' }) }),
  errors: [CommonErrors.invalidStateTransition],
  example: { bookingId: EXAMPLE_BOOKING, input: { mileageIn: 48_912 } },
  replay: answersAs(getReturn),
  async run(ctx, args): Promise<ReturnView> {
    const booking = await readBooking(ctx, args.bookingId);
    checkMileageIn(booking, args.input.mileageIn);
    const recorded = await ctx.db.$transaction((tx) => applyBookingAction(tx, originOf(ctx), booking, 'record_return', { mileageIn: args.input.mileageIn }));
    return returnView(recorded, await ctx.db.vehicleReturn.findUnique({ where: { bookingId: booking.id } }));
  },
});

export const submitBookingReturn = defineOperation({
  name: 'submitReturn',
  summary: 'Submit return for review',
  description:
    "The vehicle is back: the booking moves to return_in_review (return.submitted) and the return is submitted. With both odometer readings the mileage object is computed, and a positive mileage fee becomes a post-trip charge of type mileage (charge.created). mileage_in may be given here, else the one recorded is used; without either (when a reading was taken at pickup), 422.",
  access: { permission: 'returns:write' },
  args: z.object({ bookingId, input: z.object({ mileageIn: odometer('The odometer reading at return, if not recorded yet.').nullish() }).meta({ id: 'SubmitReturnInput' }).nullish() }),
  errors: [CommonErrors.invalidStateTransition],
  example: { bookingId: EXAMPLE_BOOKING, input: { mileageIn: 48_912 } },
  replay: answersAs(getReturn),
  async run(ctx, args): Promise<ReturnView> {
    const booking = await readBooking(ctx, args.bookingId);
    bookingMachine.check(booking, 'submit_return');
    const mileageIn = args.input?.mileageIn ?? booking.mileageIn;
    if (mileageIn === null && booking.mileageOut !== null) throw CommonErrors.parameterMissing('mileage_in');
    if (mileageIn !== null) checkMileageIn(booking, mileageIn);
    const outcome = await ctx.db.$transaction((tx) => submitReturn(tx, originOf(ctx), booking, { mileageIn }, ctx.now()));
    return returnView(outcome.booking, await ctx.db.vehicleReturn.findUnique({ where: { bookingId: booking.id } }));
  },
});
