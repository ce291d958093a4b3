import { z } from 'zod';
import type { Booking, ProcessorCall, Vehicle } from '../../generated/prisma/client.ts';
import { isExclusionViolation } from '../../db/database-errors.ts';
import { loadSettings } from '../business/business-settings.ts';
import { originOf, type EventOrigin } from '../events/event.service.ts';
import { PaymentErrors, ProcessorErrors } from '../payments/payment.errors.ts';
import { recordProcessorCall, settledHere, takeProcessorCall, type CallRecovery, type MoneyContext } from '../payments/processor-calls.ts';
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
import { VehicleErrors } from '../vehicles/vehicle.errors.ts';
import { assertBookable } from '../vehicles/vehicle-state.ts';
import { expireHolds } from './booking-holds.ts';
import { vehiclePeriodTaken } from './booking-overlap.ts';
import { bookingMachine } from './booking-state.ts';
import { applyBookingAction } from './booking-transitions.ts';
import { BookingErrors } from './booking.errors.ts';
import { readBooking } from './get-booking.ts';

const MAX_RENTAL_MS = 366 * 86_400_000;
/** The reason of an extension attempt the processor declined (one idempotency key each). */
const DECLINED = 'declined';
/** The reason of one it did not answer (the next attempt repeats its key). */
const UNANSWERED = 'processor_unavailable';

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

/** What confirming an extension writes: the new end and the booking's new price snapshot. */
interface Extension {
  previousEndAt: Date;
  endAt: Date;
  snapshot: ReturnType<typeof extendedSnapshot>;
}

interface Reservation {
  booking: Booking;
  /** The extension transaction and its processor call; null when the extra time costs nothing. */
  charge: { transactionId: string; callKey: string; paymentReference: string | null } | null;
}

/**
 * Reserve the longer period: the booking's new end is written (the exclusion constraint
 * refuses an overlap) together with a pending extension transaction and its processor call
 * (on record for the money sweep), in one transaction.
 */
async function reserve(ctx: DomainContext, origin: EventOrigin, booking: Booking, extension: Extension, extraCents: number): Promise<Reservation> {
  const { endAt } = extension;
  try {
    return await ctx.db.$transaction(async (tx) => {
      if (await vehiclePeriodTaken(tx, booking.vehicleId, { startAt: booking.startAt, endAt }, ctx.now(), booking.id)) throw unavailable(booking, endAt);
      const reserved = await applyBookingAction(tx, origin, booking, 'reserve_extension', { endAt });
      if (extraCents === 0) return { booking: reserved, charge: null };
      const transactionId = newId('transaction');
      await recordTransaction(tx, origin, { id: transactionId, bookingId: booking.id, type: 'extension', status: 'pending', amountCents: extraCents, currency: booking.currency, reason: `extension to ${endAt.toISOString()}` });
      // One key per extension the processor answered: a declined one is final, an unanswered one is repeated as it was.
      const declined = await tx.transaction.count({ where: { bookingId: booking.id, type: 'extension', status: 'failed', reason: DECLINED } });
      const payment = await tx.payment.findUnique({ where: { bookingId: booking.id }, select: { processorPaymentId: true } });
      const charge = { transactionId, callKey: `extension:${booking.id}:${booking.endAt.getTime()}:${endAt.getTime()}:${declined}`, paymentReference: payment?.processorPaymentId ?? null };
      await recordProcessorCall(tx, origin, {
        kind: 'extension',
        bookingId: booking.id,
        subjectId: transactionId,
        idempotencyKey: charge.callKey,
        reference: charge.paymentReference,
        amountCents: extraCents,
        currency: booking.currency,
        details: { previousEndAt: extension.previousEndAt.toISOString(), endAt: endAt.toISOString(), ...extension.snapshot },
      });
      return { booking: reserved, charge };
    });
  } catch (err) {
    if (isExclusionViolation(err)) throw unavailable(booking, endAt);
    throw err;
  }
}

const unavailable = (booking: Booking, endAt: Date) =>
  BookingErrors.vehicleUnavailable(`Vehicle ${booking.vehicleId} is booked for part of ${booking.endAt.toISOString()} – ${endAt.toISOString()}; the booking keeps its end.`);

/**
 * Run `write` on the booking as it is now, again if it changed meanwhile (the processor's
 * answer must be recorded whatever else happened to the booking during the call).
 */
async function onCurrentBooking<T>(m: MoneyContext, bookingId: string, write: (tx: Db, booking: Booking) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await m.db.$transaction(async (tx) => write(tx, await tx.booking.findUniqueOrThrow({ where: { id: bookingId } })));
    } catch (err) {
      const raced = err instanceof DomainError && err.code === 'invalid_state_transition';
      if (!raced || attempt >= 3) throw err;
    }
  }
}

/** The charge did not happen: the booking ends where it did before, the attempt is failed. */
async function giveBack(m: MoneyContext, origin: EventOrigin, bookingId: string, extension: Pick<Extension, 'previousEndAt' | 'endAt'>, charge: Reservation['charge'], reason: string) {
  await onCurrentBooking(m, bookingId, async (tx, current) => {
    if (charge) await takeProcessorCall(tx, charge.callKey);
    if (current.endAt.getTime() === extension.endAt.getTime()) await applyBookingAction(tx, origin, current, 'release_extension', { endAt: extension.previousEndAt });
    if (charge) {
      await settleTransaction(tx, charge.transactionId, 'failed');
      await tx.transaction.update({ where: { id: charge.transactionId }, data: { reason } });
    }
  });
}

/**
 * The extra time is paid (or cost nothing): the booking's new end and price are confirmed
 * (booking.extended); the extension transaction keeps the processor's id of the charge
 * (`processorId`), which a cancellation's refund of it names.
 */
async function confirm(m: MoneyContext, origin: EventOrigin, bookingId: string, extension: Extension, charge: Reservation['charge'], processorId: string | null) {
  const { settings } = await loadSettings(m);
  const graceMs = settings.return_rules.grace_minutes * 60_000;
  await onCurrentBooking(m, bookingId, async (tx, current) => {
    if (charge) {
      await takeProcessorCall(tx, charge.callKey);
      await settleTransaction(tx, charge.transactionId, 'succeeded', processorId ?? undefined);
    }
    // A late rental extended past the present is on time again.
    const backOnTime = current.state === 'late' && extension.endAt.getTime() + graceMs > m.now().getTime();
    await applyBookingAction(tx, origin, current, backOnTime ? 'extend_late_rental' : 'confirm_extension', { endAt: extension.endAt, ...extension.snapshot });
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
  // More time on the vehicle is new time on it, refused as a new booking or period is.
  assertBookable(vehicle);
  const price = priceOrReject(bookedRates(booking, vehicle), { startAt: booking.startAt, endAt }, booking.unlimitedMiles);
  // Never less than nothing: an extension is not a refund, whatever a longer period's rules give.
  const extraCents = Math.max(0, price.totalCents - booking.totalCents);
  const extension: Extension = { previousEndAt: booking.endAt, endAt, snapshot: extendedSnapshot(price, booking, extraCents) };
  const origin = originOf(ctx);
  await expireHolds(ctx.db, ctx.now(), { vehicleId: booking.vehicleId });

  const { charge } = await reserve(ctx, origin, booking, extension, extraCents);
  let charged: { id: string } | null = null;
  if (charge) {
    try {
      charged = await ctx.processor.chargeOffSession({
        bookingId: booking.id,
        customerId: booking.customerId,
        paymentReference: charge.paymentReference,
        amountCents: extraCents,
        currency: booking.currency,
        idempotencyKey: charge.callKey,
      });
    } catch (err) {
      const refused = err instanceof DomainError && err.type === 'payment_error';
      if (await settledHere(giveBack(ctx, origin, booking.id, extension, charge, refused ? DECLINED : UNANSWERED))) throw err;
      return ctx.db.booking.findUniqueOrThrow({ ...(query as object), where: { id: booking.id } });
    }
  }
  await settledHere(confirm(ctx, origin, booking.id, extension, charge, charged?.id ?? null));
  return ctx.db.booking.findUniqueOrThrow({ ...(query as object), where: { id: booking.id } });
}

/** An extension's charge whose request died before settling it: confirmed or given back as the processor says; one it never received is given back. */
export const extensionRecovery: CallRecovery = {
  lostCall: (call) => ({ kind: 'charge', idempotencyKey: call.id, paymentReference: call.reference, amountCents: call.amountCents, currency: call.currency, since: call.createdAt }),
  succeeded: (m, origin, call, processorId) => confirm(m, origin, call.bookingId, extensionOf(call), chargeOf(call), processorId),
  refused: (m, origin, call) => giveBack(m, origin, call.bookingId, extensionOf(call), chargeOf(call), DECLINED),
  whenAbsent: { unanswered: (m, origin, call) => giveBack(m, origin, call.bookingId, extensionOf(call), chargeOf(call), UNANSWERED) },
};

const chargeOf = (call: ProcessorCall) => ({ transactionId: call.subjectId, callKey: call.id, paymentReference: call.reference });

function extensionOf(call: ProcessorCall): Extension {
  const d = call.details as Record<string, string | number | null>;
  const snapshot = { days: Number(d.days), rentalCents: Number(d.rentalCents), unlimitedMilesFeeCents: Number(d.unlimitedMilesFeeCents), includedMiles: d.includedMiles === null ? null : Number(d.includedMiles), totalCents: Number(d.totalCents) };
  return { previousEndAt: new Date(String(d.previousEndAt)), endAt: new Date(String(d.endAt)), snapshot };
}

export const extendBookingOperation = defineOperation({
  name: 'extendBooking',
  summary: 'Extend an eligible booking',
  description:
    "Moves a paid booking's end_at later, before the vehicle is back (booked, confirmed, ready_for_pickup, active, late). The extra time is priced at the booking's own rates as the longer period would be (whole days rounded up; the unlimited-miles fee and included miles follow the days) minus what was already priced, and charged to the customer's saved card without them present; the charge is an extension transaction. The longer period must be free: an overlapping booking answers 409 vehicle_unavailable and nothing changes; a vehicle archived meanwhile answers 409 vehicle_archived, as at creation and on a new period. A declined card answers 402 card_declined and the booking keeps its end; if the processor does not answer (502), nothing changes and a retry reaches the processor under the same idempotency key, so the customer is never charged twice. A late rental extended past the present (and the grace) is active again. Emits booking.extended.",
  access: { permission: 'bookings:write' },
  args: z.object({ id: id('The booking (bk_...).'), input: extendBookingInput }),
  errors: [CommonErrors.invalidStateTransition, BookingErrors.vehicleUnavailable, VehicleErrors.archived, PaymentErrors.cardDeclined, PaymentErrors.noSavedCard, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { id: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { endAt: '2027-03-06T10:00:00Z' } },
  run: (ctx, args, { query }) => extendBooking(ctx, args.id, args.input.endAt, query),
});
