import { z } from 'zod';
import type { Booking } from '../../generated/prisma/client.ts';
import { isExclusionViolation, isInactiveVehicleViolation } from '../../db/database-errors.ts';
import { loadSettings } from '../business/business-settings.ts';
import { customerInput, insertCustomer } from '../customers/customer-input.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { priceOrReject } from '../quotes/price-vehicle.ts';
import { PRICED_FIELDS, type PricedVehicle } from '../quotes/pricing.ts';
import { QuoteErrors } from '../quotes/quote.errors.ts';
import { CommonErrors, validationError } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation, wantsRelations, type PrismaQuery } from '../shared/operation.ts';
import { replayRow } from '../shared/replay.ts';
import { id, newMetadata } from '../shared/validation.ts';
import { VehicleErrors } from '../vehicles/vehicle.errors.ts';
import { publicFleet } from '../website/public-vehicles.ts';
import { assertNotInPast, checkRentalPeriod, rentalPeriodFields } from '../vehicles/rental-period.ts';
import { expireHolds } from './booking-holds.ts';
import { periodUnavailable, vehiclePeriodTaken } from './booking-overlap.ts';
import { presentBooking } from './booking.fields.ts';
import { BookingErrors } from './booking.errors.ts';
import { assertBookable } from '../vehicles/vehicle-state.ts';

export const createBookingInput = z
  .object({
    vehicleId: id('The vehicle to book (veh_...).'),
    customerId: id('An existing customer (cus_...); or pass `customer` to create one.').nullish(),
    customer: customerInput.nullish(),
    ...rentalPeriodFields,
    unlimitedMiles: z.boolean().default(false).meta({ description: 'Unlimited miles (only where the vehicle offers it).' }),
    quoteId: id('An unexpired quote for the same vehicle, period and mileage option keeps its price.').nullish(),
    metadata: newMetadata,
  })
  .superRefine((b, ctx) => {
    checkRentalPeriod(b, ctx);
    if (!b.customerId === !b.customer) ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'pass exactly one of customer_id and customer' });
  })
  .meta({ id: 'CreateBookingInput' });

export type BookingValues = z.output<typeof createBookingInput>;

/**
 * A browser booking (a publishable key, the embedded components) books only what the
 * published website shows, for a customer given inline: a vehicle the website does not show
 * answers exactly like an unknown one.
 */
async function assertBrowserBookable(ctx: DomainContext, input: BookingValues): Promise<void> {
  if (ctx.principal.keyKind !== 'publishable') return;
  if (input.customerId) throw validationError('customer_id', 'A publishable key books for a customer given inline (`customer`), not an existing customer_id.');
  const fleet = await publicFleet(ctx);
  await found(ctx.db.vehicle.findFirst({ where: { AND: [fleet, { id: input.vehicleId }] }, select: { id: true } }), 'vehicle', input.vehicleId, 'vehicle_id');
}

/** A booking as its create answer carries it: with the client secret a browser reads it and starts its checkout with. */
export const withClientSecret = <T extends { id: string }>(ctx: DomainContext, booking: T): T & { clientSecret: string } =>
  Object.assign(booking, { clientSecret: ctx.browserBooking.clientSecret(booking.id) });

/** A pending_payment booking that holds its vehicle (the contract's "Booking"), with its payment and deposit. */
export async function insertBooking(ctx: DomainContext, input: BookingValues, query: PrismaQuery = {}) {
  assertNotInPast(ctx, input.startAt);
  await assertBrowserBookable(ctx, input);
  const now = ctx.now();
  // What the booking needs of its vehicle: its status and what prices it.
  const vehicle = await found(ctx.db.vehicle.findUnique({ where: { id: input.vehicleId }, select: { id: true, status: true, ...PRICED_FIELDS } }), 'vehicle', input.vehicleId, 'vehicle_id');
  assertBookable(vehicle, 'vehicle_id');
  // The settings and the time zone that prices the days: one read of the business.
  const { settings, timeZone } = await loadSettings(ctx);
  const price = await bookingPrice(ctx, input, vehicle, now, timeZone);

  // An existing customer is the caller's (a row's owner never changes, so this holds in the transaction too).
  if (input.customerId) await found(ctx.db.customer.findUnique({ where: { id: input.customerId }, select: { id: true } }), 'customer', input.customerId, 'customer_id');
  // Holds that ran out must not block this booking: expire them first, with their events.
  await expireHolds(ctx.db, now, { vehicleId: vehicle.id });
  try {
    return await ctx.db.$transaction(async (tx) => {
      if (await vehiclePeriodTaken(tx, vehicle.id, input, now)) throw periodUnavailable(vehicle.id, input);
      const customerId = input.customerId ?? (await insertCustomer(tx, ctx, input.customer!)).id;
      const bookingId = newId('booking');
      const depositRequired = price.depositCents > 0 && settings.security_deposit_defaults.required;
      const created = await tx.booking.create({
        data: {
          id: bookingId,
          ...ctx.tenant,
          vehicleId: vehicle.id,
          customerId,
          quoteId: input.quoteId ?? null,
          state: 'pending_payment',
          startAt: input.startAt,
          endAt: input.endAt,
          unlimitedMiles: input.unlimitedMiles,
          ...price,
          paymentGate: 'pending',
          identityGate: settings.identity_requirements.required ? 'pending' : 'not_required',
          agreementGate: settings.agreement_requirements.required ? 'pending' : 'not_required',
          depositGate: depositRequired ? 'pending' : 'not_required',
          insuranceGate: settings.insurance_requirements.required ? 'pending' : 'not_required',
          holdExpiresAt: new Date(now.getTime() + ctx.config.holdMinutes * 60_000),
          metadata: input.metadata,
        },
      });
      await tx.payment.create({ data: { id: newId('payment'), ...ctx.tenant, bookingId, amountCents: price.totalCents, currency: price.currency } });
      await tx.deposit.create({
        data: { id: newId('deposit'), ...ctx.tenant, bookingId, amountCents: price.depositCents, currency: price.currency, state: depositRequired ? 'required' : 'not_required' },
      });
      // Read again only when the answer wants related records (made just above).
      const booking = wantsRelations(query) ? await tx.booking.findUniqueOrThrow({ ...query, where: { id: bookingId } }) : created;
      await recordEvent(tx, originOf(ctx), { type: 'booking.created', bookingId, object: presentBooking(booking as Booking) });
      return booking;
    });
  } catch (err) {
    // Archived while this booking was being made (the database's check on insert).
    if (isInactiveVehicleViolation(err)) throw VehicleErrors.archived(vehicle.id, 'vehicle_id');
    if (isExclusionViolation(err)) throw periodUnavailable(vehicle.id, input);
    throw err;
  }
}

/** An unexpired quote for the same vehicle and period keeps its price; otherwise price now. */
async function bookingPrice(ctx: DomainContext, input: BookingValues, vehicle: PricedVehicle, now: Date, timeZone: string) {
  if (!input.quoteId) return priceOrReject(vehicle, input, input.unlimitedMiles, { timeZone });
  const quote = await found(ctx.db.quote.findUnique({ where: { id: input.quoteId } }), 'quote', input.quoteId, 'quote_id');
  const same =
    quote.vehicleId === input.vehicleId &&
    quote.startAt.getTime() === input.startAt.getTime() &&
    quote.endAt.getTime() === input.endAt.getTime() &&
    quote.unlimitedMiles === input.unlimitedMiles;
  if (!same) throw validationError('quote_id', 'Invalid quote_id: the quote is for another vehicle, period or mileage option.');
  if (quote.expiresAt <= now) throw QuoteErrors.expired(quote.expiresAt);
  const { days, currency, dailyRateCents, rentalCents, unlimitedMilesFeeCents, deliveryFeeCents, depositCents, includedMiles, extraMileFeeCents, totalCents, dayRates } = quote;
  return { days, currency, dailyRateCents, rentalCents, unlimitedMilesFeeCents, deliveryFeeCents, depositCents, includedMiles, extraMileFeeCents, totalCents, dayRates: dayRates ?? [] };
}

export const createBooking = defineOperation({
  name: 'createBooking',
  summary: 'Create a booking',
  description:
    'Books a vehicle for a period, for an existing customer or one given inline. The booking starts in pending_payment and holds its vehicle until hold_expires_at; an overlapping booking of the same vehicle is refused with 409 vehicle_unavailable, also under concurrency (the database enforces it). Retries with the same Idempotency-Key never book twice. ' +
    "The answer (and only this one) carries the booking's client_secret. Publishable keys may call it too (the browser booking of the embedded components): only for a vehicle the published website shows (another answers 404 like an unknown vehicle), for a customer given inline, rate-limited per client address; with the publishable key and the client_secret (X-Client-Secret header or client_secret query parameter), the browser may then read that one booking and start its checkout, nothing else.",
  access: { permission: 'bookings:write', browser: { create: true } },
  args: z.object({ input: createBookingInput }),
  errors: [BookingErrors.vehicleUnavailable, VehicleErrors.archived, QuoteErrors.expired, CommonErrors.resourceMissing],
  example: {
    input: {
      vehicleId: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x',
      startAt: '2027-03-01T10:00:00Z',
      endAt: '2027-03-04T10:00:00Z',
      unlimitedMiles: true,
      customer: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+1 512 555 0100' },
      metadata: { order_id: '1001' },
    },
  },
  run: async (ctx, { input }, { query }) => withClientSecret(ctx, await insertBooking(ctx, input, query)),
  // A retry answers the booking the first run created, with the same client secret (derived, never stored).
  async replay(ctx, args, { query }, effect) {
    const booking = (await replayRow(ctx, 'Booking', args, effect, query)) as Booking | undefined;
    return booking ? withClientSecret(ctx, booking) : undefined;
  },
});
