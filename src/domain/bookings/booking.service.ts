import { z } from 'zod';
import type { Booking, Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { loadSettings } from '../business/business.service.ts';
import { customerInput, insertCustomer } from '../customers/customer.service.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { priceOrReject } from '../quotes/quote.service.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { conflict, resourceMissing, validationError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { pageQuery, toPage, type PageParams } from '../shared/pagination.ts';
import { newMetadata, parseInput } from '../shared/validation.ts';
import { assertNotInPast, rentalPeriod } from '../vehicles/vehicle.service.ts';
import { applyBookingAction } from './booking-transitions.ts';
import { expireHolds, holdLapsed } from './booking-holds.ts';
import { presentBooking } from './booking.fields.ts';
import { isExclusionViolation } from '../../db/database.ts';
import { settlePaymentOnCancel, releaseDepositOnCancel } from '../payments/payment-cancel.ts';

type Query = { include?: Prisma.BookingInclude; select?: Prisma.BookingSelect };

const createBookingInput = z
  .object({
    vehicleId: z.string().min(1).max(100),
    customerId: z.string().min(1).max(100).nullish(),
    customer: customerInput.nullish(),
    unlimitedMiles: z.boolean().default(false),
    quoteId: z.string().min(1).max(100).nullish(),
    metadata: newMetadata,
  })
  .and(rentalPeriod)
  .superRefine((b, ctx) => {
    if (!b.customerId === !b.customer) ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'pass exactly one of customer_id and customer' });
  });

/** POST /v1/bookings: a pending_payment booking that holds its vehicle (CONTRACT.md "Booking"). */
export async function createBooking(ctx: DomainContext, raw: unknown, query: Query = {}) {
  authorize(ctx.principal, 'bookings:write');
  const input = parseInput(createBookingInput, raw);
  assertNotInPast(ctx, input.startAt);
  const now = ctx.now();
  const vehicle = await ctx.prisma.vehicle.findFirst({ where: { id: input.vehicleId, ...scope(ctx) } });
  if (!vehicle) throw resourceMissing('vehicle', input.vehicleId, 'vehicle_id');
  if (vehicle.status !== 'active') throw conflict('vehicle_unavailable', `Vehicle ${vehicle.id} is archived and cannot be booked.`);
  const price = await bookingPrice(ctx, input, vehicle, now);
  const { settings } = await loadSettings(ctx);

  // Holds that ran out must not block this booking: expire them first, with their events.
  await expireHolds(ctx.prisma, now, { vehicleId: vehicle.id });
  try {
    return await ctx.prisma.$transaction(async (tx) => {
      const customerId = input.customerId ? await existingCustomerId(tx, ctx, input.customerId) : (await insertCustomer(tx, ctx, input.customer!)).id;
      const bookingId = newId('booking');
      const depositRequired = price.depositCents > 0 && settings.security_deposit_defaults.required;
      await tx.booking.create({
        data: {
          id: bookingId,
          ...scope(ctx),
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
      await tx.payment.create({ data: { id: newId('payment'), ...scope(ctx), bookingId, amountCents: price.totalCents, currency: price.currency } });
      await tx.deposit.create({
        data: { id: newId('deposit'), ...scope(ctx), bookingId, amountCents: price.depositCents, currency: price.currency, state: depositRequired ? 'required' : 'not_required' },
      });
      const booking = await tx.booking.findUniqueOrThrow({ ...query, where: { id: bookingId } } as { where: { id: string } });
      await recordEvent(tx, originOf(ctx), { type: 'booking.created', bookingId, object: presentBooking(booking as Booking) });
      return booking;
    });
  } catch (err) {
    if (isExclusionViolation(err)) {
      throw conflict('vehicle_unavailable', `Vehicle ${vehicle.id} is already booked for part of ${input.startAt.toISOString()} – ${input.endAt.toISOString()}.`);
    }
    throw err;
  }
}

/** An unexpired quote for the same vehicle and period keeps its price; otherwise price now. */
async function bookingPrice(
  ctx: DomainContext,
  input: { quoteId?: string | null; vehicleId: string; startAt: Date; endAt: Date; unlimitedMiles: boolean },
  vehicle: Parameters<typeof priceOrReject>[0],
  now: Date,
) {
  if (!input.quoteId) return priceOrReject(vehicle, input, input.unlimitedMiles);
  const quote = await ctx.prisma.quote.findFirst({ where: { id: input.quoteId, ...scope(ctx) } });
  if (!quote) throw resourceMissing('quote', input.quoteId, 'quote_id');
  const same =
    quote.vehicleId === input.vehicleId &&
    quote.startAt.getTime() === input.startAt.getTime() &&
    quote.endAt.getTime() === input.endAt.getTime() &&
    quote.unlimitedMiles === input.unlimitedMiles;
  if (!same) throw validationError('quote_id', 'Invalid quote_id: the quote is for another vehicle, period or mileage option.');
  if (quote.expiresAt <= now) throw validationError('quote_id', `Invalid quote_id: the quote expired at ${quote.expiresAt.toISOString()}.`, 'quote_expired');
  const { id: _id, businessId: _b, livemode: _l, vehicleId: _v, startAt: _s, endAt: _e, unlimitedMiles: _u, available: _a, expiresAt: _x, metadata: _m, createdAt: _c, ...price } = quote;
  return price;
}

async function existingCustomerId(tx: Parameters<typeof insertCustomer>[0], ctx: DomainContext, id: string): Promise<string> {
  const customer = await tx.customer.findFirst({ where: { id, ...scope(ctx) }, select: { id: true } });
  if (!customer) throw resourceMissing('customer', id, 'customer_id');
  return customer.id;
}

/** The booking must be the caller's (same business and environment), or it does not exist. */
export async function assertBookingVisible(ctx: DomainContext, bookingId: string, param?: string): Promise<void> {
  const found = await ctx.prisma.booking.findFirst({ where: { id: bookingId, ...scope(ctx) }, select: { id: true } });
  if (!found) throw resourceMissing('booking', bookingId, param);
}

export async function getBooking(ctx: DomainContext, id: string, query: Query = {}) {
  authorize(ctx.principal, 'bookings:read');
  const where = { id, ...scope(ctx) };
  const booking = await ctx.prisma.booking.findFirst({ ...query, where });
  if (!booking) throw resourceMissing('booking', id);
  // A hold that ran out before the sweeper came by is expired now, so the answer shows it.
  if (!holdLapsed(booking as Partial<Booking>, ctx.now())) return booking;
  await expireHolds(ctx.prisma, ctx.now(), where);
  return (await ctx.prisma.booking.findFirst({ ...query, where }))!;
}

export async function listBookings(ctx: DomainContext, params: PageParams & { customerId?: string | null }, query: Query = {}) {
  authorize(ctx.principal, 'bookings:read');
  const page = pageQuery(params);
  const rows = await ctx.prisma.booking.findMany({
    ...query,
    where: { ...scope(ctx), ...(params.customerId ? { customerId: params.customerId } : {}), ...page.where },
    orderBy: page.orderBy,
    take: page.take,
  });
  return toPage(rows, page);
}

const cancelInput = z.object({ reason: z.string().trim().max(500).nullish() });

/**
 * POST /v1/bookings/{id}/cancel: allowed before pickup. A paid booking is refunded by the
 * cancellation policy and ends `refunded` when money goes back, else `canceled`; a secured
 * deposit is released.
 */
export async function cancelBooking(ctx: DomainContext, id: string, raw: unknown, query: Query = {}) {
  authorize(ctx.principal, 'bookings:write');
  const input = parseInput(cancelInput, raw ?? {});
  const { settings } = await loadSettings(ctx);
  const booking = await getBooking(ctx, id);
  const now = ctx.now();
  return ctx.prisma.$transaction(async (tx) => {
    const payment = await tx.payment.findUnique({ where: { bookingId: id } });
    const refundCents = payment ? refundDue(payment, booking.startAt, now, settings) : 0;
    const origin = originOf(ctx);
    const updated = await applyBookingAction(tx, origin, booking, refundCents > 0 ? 'cancel_with_refund' : 'cancel', {
      canceledAt: now,
      cancellationReason: input.reason ?? 'requested_by_business',
    }, query);
    if (payment) await settlePaymentOnCancel(tx, origin, payment, refundCents);
    await releaseDepositOnCancel(tx, origin, id);
    return updated;
  });
}

function refundDue(
  payment: { state: string; amountCents: number; amountRefundedCents: number },
  startAt: Date,
  now: Date,
  settings: { cancellation_window_hours: number; late_cancellation_refund_percent: number },
): number {
  if (payment.state !== 'succeeded' && payment.state !== 'partially_refunded') return 0;
  const refundable = payment.amountCents - payment.amountRefundedCents;
  const inWindow = startAt.getTime() - now.getTime() >= settings.cancellation_window_hours * 3_600_000;
  return inWindow ? refundable : Math.floor((refundable * settings.late_cancellation_refund_percent) / 100);
}
