import { z } from 'zod';
import type { Booking, Vehicle } from '../../generated/prisma/client.ts';
import { isExclusionViolation } from '../../db/database-errors.ts';
import { loadSettings } from '../business/business-settings.ts';
import { originOf, type EventOrigin } from '../events/event.service.ts';
import { PaymentErrors, ProcessorErrors } from '../payments/payment.errors.ts';
import { recordTransaction, settleTransaction } from '../payments/transactions.ts';
import { priceOrReject } from '../quotes/price-vehicle.ts';
import type { Price } from '../quotes/pricing.ts';
import { CommonErrors, validationError } from '../shared/common.errors.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import { DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation, type PrismaQuery } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { rentalPeriodFields } from '../vehicles/rental-period.ts';
import { expireHolds } from './booking-holds.ts';
import { bookingMachine } from './booking-state.ts';
import { applyBookingAction } from './booking-transitions.ts';
import { BookingErrors } from './booking.errors.ts';
import { readBooking } from './get-booking.ts';

const MAX_RENTAL_MS = 366 * 86_400_000;
/** The reason of an extension attempt the processor declined (one idempotency key each). */
const DECLINED = 'declined';

export const extendBookingInput = z
  .object({ endAt: rentalPeriodFields.endAt.meta({ description: 'The new end of the rental, later than the current end_at; at most 366 days after start_at.' }) })
  .meta({ id: 'ExtendBookingInput' });

/**
 * The booking's own rates (its price snapshot) over the vehicle: the extra time costs what the
 * booked days cost, whatever the vehicle's prices became since.
 */
function bookedRates(booking: Booking, vehicle: Vehicle) {
  return {
    ...vehicle,
    currency: booking.currency,
    dailyRateCents: booking.dailyRateCents,
    depositCents: booking.depositCents,
    extraMileFeeCents: booking.extraMileFeeCents,
    includedMiles: booking.includedMiles !== null ? booking.includedMiles / booking.days : vehicle.includedMiles,
    unlimitedMilesDailyCents: booking.unlimitedMiles ? booking.unlimitedMilesFeeCents / booking.days : vehicle.unlimitedMilesDailyCents,
  };
}

/** The snapshot after the extension: the longer period's price, its total what was priced plus what the extra time cost. */
function extendedSnapshot(price: Price, booking: Booking, extraCents: number) {
  const { days, rentalCents, unlimitedMilesFeeCents, includedMiles } = price;
  return { days, rentalCents, unlimitedMilesFeeCents, includedMiles, totalCents: booking.totalCents + extraCents };
}

interface Reservation {
  booking: Booking;
  transactionId: string | null;
}

/**
 * Reserve the longer period: the booking's new end is written (the exclusion constraint
 * refuses an overlap) together with a pending extension transaction, in one transaction.
 */
async function reserve(ctx: DomainContext, origin: EventOrigin, booking: Booking, endAt: Date, extraCents: number): Promise<Reservation> {
  try {
    return await ctx.db.$transaction(async (tx) => {
      const reserved = await applyBookingAction(tx, origin, booking, 'reserve_extension', { endAt });
      if (extraCents === 0) return { booking: reserved, transactionId: null };
      const transactionId = newId('transaction');
      await recordTransaction(tx, origin, { id: transactionId, bookingId: booking.id, type: 'extension', status: 'pending', amountCents: extraCents, currency: booking.currency, reason: `extension to ${endAt.toISOString()}` });
      return { booking: reserved, transactionId };
    });
  } catch (err) {
    if (isExclusionViolation(err)) throw BookingErrors.vehicleUnavailable(`Vehicle ${booking.vehicleId} is booked for part of ${booking.endAt.toISOString()} – ${endAt.toISOString()}; the booking keeps its end.`);
    throw err;
  }
}

/**
 * Run `write` on the booking as it is now, again if it changed meanwhile (the processor's
 * answer must be recorded whatever else happened to the booking during the call).
 */
async function onCurrentBooking<T>(ctx: DomainContext, bookingId: string, write: (tx: Db, booking: Booking) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.$transaction(async (tx) => write(tx, await tx.booking.findUniqueOrThrow({ where: { id: bookingId } })));
    } catch (err) {
      const raced = err instanceof DomainError && err.code === 'invalid_state_transition';
      if (!raced || attempt >= 3) throw err;
    }
  }
}

/** The charge did not happen: the booking ends where it did before, the attempt is failed. */
async function giveBack(ctx: DomainContext, origin: EventOrigin, reservation: Reservation, previousEnd: Date, reason: string) {
  await onCurrentBooking(ctx, reservation.booking.id, async (tx, current) => {
    if (current.endAt.getTime() === reservation.booking.endAt.getTime()) await applyBookingAction(tx, origin, current, 'release_extension', { endAt: previousEnd });
    if (reservation.transactionId) {
      await settleTransaction(tx, reservation.transactionId, 'failed');
      await tx.transaction.update({ where: { id: reservation.transactionId }, data: { reason } });
    }
  });
}

/**
 * Extend a paid booking (the spec's "Extend an eligible booking"): reserve the longer period,
 * charge the extra time to the saved card, then confirm the extension or give it back.
 */
export async function extendBooking(ctx: DomainContext, bookingId: string, endAt: Date, query: PrismaQuery = {}) {
  const booking = await readBooking(ctx, bookingId);
  bookingMachine.check(booking, 'reserve_extension');
  if (endAt <= booking.endAt) throw validationError('end_at', `Invalid end_at: must be later than the booking's end_at (${booking.endAt.toISOString()}).`);
  if (endAt.getTime() - booking.startAt.getTime() > MAX_RENTAL_MS) throw validationError('end_at', 'Invalid end_at: a rental lasts at most 366 days.');
  const vehicle = await ctx.db.vehicle.findUniqueOrThrow({ where: { id: booking.vehicleId } });
  const price = priceOrReject(bookedRates(booking, vehicle), { startAt: booking.startAt, endAt }, booking.unlimitedMiles);
  // Never less than nothing: an extension is not a refund, whatever a longer period's rules give.
  const extraCents = Math.max(0, price.totalCents - booking.totalCents);
  const origin = originOf(ctx);
  await expireHolds(ctx.db, ctx.now(), { vehicleId: booking.vehicleId });

  const reservation = await reserve(ctx, origin, booking, endAt, extraCents);
  if (reservation.transactionId) {
    // One key per extension the processor answered: a declined one is final, an unanswered one is repeated as it was.
    const declined = await ctx.db.transaction.count({ where: { bookingId: booking.id, type: 'extension', status: 'failed', reason: DECLINED } });
    const payment = await ctx.db.payment.findUnique({ where: { bookingId: booking.id }, select: { processorPaymentId: true } });
    try {
      await ctx.processor.chargeOffSession({
        bookingId: booking.id,
        customerId: booking.customerId,
        paymentReference: payment?.processorPaymentId ?? null,
        amountCents: extraCents,
        currency: booking.currency,
        idempotencyKey: `extension:${booking.id}:${booking.endAt.getTime()}:${endAt.getTime()}:${declined}`,
      });
    } catch (err) {
      const refused = err instanceof DomainError && err.type === 'payment_error';
      await giveBack(ctx, origin, reservation, booking.endAt, refused ? DECLINED : 'processor_unavailable');
      throw err;
    }
  }

  const { settings } = await loadSettings(ctx);
  const graceMs = settings.return_rules.grace_minutes * 60_000;
  await onCurrentBooking(ctx, booking.id, async (tx, current) => {
    if (reservation.transactionId) await settleTransaction(tx, reservation.transactionId, 'succeeded');
    // A late rental extended past the present is on time again.
    const backOnTime = current.state === 'late' && endAt.getTime() + graceMs > ctx.now().getTime();
    await applyBookingAction(tx, origin, current, backOnTime ? 'extend_late_rental' : 'confirm_extension', { endAt, ...extendedSnapshot(price, booking, extraCents) });
  });
  return ctx.db.booking.findUniqueOrThrow({ ...(query as object), where: { id: booking.id } });
}

export const extendBookingOperation = defineOperation({
  name: 'extendBooking',
  summary: 'Extend an eligible booking',
  description:
    "Moves a paid booking's end_at later, before the vehicle is back (booked, confirmed, ready_for_pickup, active, late). The extra time is priced at the booking's own rates as the longer period would be (whole days rounded up; the unlimited-miles fee and included miles follow the days) minus what was already priced, and charged to the customer's saved card without them present; the charge is an extension transaction. The longer period must be free: an overlapping booking answers 409 vehicle_unavailable and nothing changes. A declined card answers 402 card_declined and the booking keeps its end; if the processor does not answer (502), nothing changes and a retry reaches the processor under the same idempotency key, so the customer is never charged twice. A late rental extended past the present (and the grace) is active again. Emits booking.extended.",
  access: { permission: 'bookings:write' },
  args: z.object({ id: id('The booking (bk_...).'), input: extendBookingInput }),
  errors: [CommonErrors.invalidStateTransition, BookingErrors.vehicleUnavailable, PaymentErrors.cardDeclined, PaymentErrors.noSavedCard, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { id: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { endAt: '2027-03-06T10:00:00Z' } },
  run: (ctx, args, { query }) => extendBooking(ctx, args.id, args.input.endAt, query),
});
