import { z } from 'zod';
import type { Booking, Payment } from '../../generated/prisma/client.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { ProcessorErrors } from './payment.errors.ts';
import { paymentLifecycle, paymentMachine } from './payment-state.ts';

/** The answer of a checkout (the contract's "Money"): what the customer's browser or app needs to pay. */
export interface Checkout {
  id: string;
  livemode: boolean;
  bookingId: string;
  paymentId: string;
  amountCents: number;
  currency: string;
  clientSecret: string;
  url: string;
  expiresAt: Date;
  createdAt: Date;
}

export const createCheckout = defineOperation({
  name: 'createCheckout',
  summary: 'Create checkout for a booking',
  description:
    "Starts paying for a pending_payment booking: the processor prepares a payment of the booking's total, the booking moves to checkout_started (booking.checkout_started) and keeps holding its vehicle until expires_at. Hand client_secret to the customer's browser or app, which pays the processor directly: card details never pass through this API. The outcome arrives as payment.succeeded (the booking is booked) or payment.failed (it returns to pending_payment; a new checkout may follow). The client secret is shown in this answer only. `url` is never null: in the sandbox, the service's hosted payment page (a test card form whose Pay and Decline drive the sandbox processor); in live mode, the processor's page where it offers one, else the service's hosted page, which shows the processor's own payment form. A publishable key may start the checkout of the one booking whose client_secret it sends (X-Client-Secret header or client_secret query parameter: the browser booking of the embedded components).",
  access: { permission: 'payments:write', browser: { ownBooking: 'bookingId' } },
  args: z.object({ bookingId: id('The booking (bk_...).') }),
  errors: [CommonErrors.invalidStateTransition, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args): Promise<Checkout> {
    const booking = await readBooking(ctx, args.bookingId);
    const payment = await found(ctx.db.payment.findUnique({ where: { bookingId: booking.id } }), 'booking', booking.id);
    // Refused before the processor hears of it.
    bookingMachine.check(booking, 'start_checkout');
    paymentMachine.check(payment, 'start_checkout');
    const checkoutId = newId('checkout');
    // A retry with the same Idempotency-Key reaches the processor's same payment, even if this
    // attempt's write below never happened.
    const prepared = await preparePayment(ctx, booking, payment, checkoutId);
    const expiresAt = booking.holdExpiresAt ?? new Date(ctx.now().getTime() + ctx.config.holdMinutes * 60_000);
    const started = await ctx.db.$transaction(async (tx) => {
      const origin = originOf(ctx);
      await applyBookingAction(tx, origin, booking, 'start_checkout');
      return runAction(tx, origin, paymentLifecycle, payment, 'start_checkout', { processorPaymentId: prepared.id, checkoutId, checkoutExpiresAt: expiresAt });
    });
    return checkoutOf(ctx, started, checkoutId, prepared, expiresAt);
  },
  /**
   * The checkout the first run started: the processor's payment again under the same key (its
   * client secret is in no row), with the checkout the payment keeps.
   */
  async replay(ctx, args, _extras, effect) {
    const payment = await ctx.db.payment.findUnique({ where: { bookingId: args.bookingId } });
    if (!payment?.checkoutId || !payment.checkoutExpiresAt || !(effect.changed.Payment ?? []).includes(payment.id)) return undefined;
    const booking = await readBooking(ctx, args.bookingId);
    const prepared = await preparePayment(ctx, booking, payment, payment.checkoutId);
    return checkoutOf(ctx, payment, payment.checkoutId, prepared, payment.checkoutExpiresAt);
  },
});

/** The processor's payment of the booking's total; a retry with the same Idempotency-Key reaches the same one. */
function preparePayment(ctx: DomainContext, booking: Booking, payment: Payment, checkoutId: string) {
  return ctx.processor.createPayment({
    bookingId: booking.id,
    customerId: booking.customerId,
    amountCents: payment.amountCents,
    currency: payment.currency,
    idempotencyKey: `checkout:${payment.id}:${ctx.idempotencyKey ?? checkoutId}`,
  });
}

function checkoutOf(ctx: DomainContext, payment: Payment, checkoutId: string, prepared: { clientSecret: string; url: string | null }, expiresAt: Date): Checkout {
  return {
    id: checkoutId,
    livemode: payment.livemode,
    bookingId: payment.bookingId,
    paymentId: payment.id,
    amountCents: payment.amountCents,
    currency: payment.currency,
    clientSecret: prepared.clientSecret,
    // The processor's own page where it has one; else the service's hosted payment page (never
    // null). Live, that page mounts the processor's payment form with the client secret, which
    // travels in the fragment: a browser never sends it to a server.
    url:
      prepared.url ??
      ctx.browserBooking.checkoutUrl(payment.bookingId, payment.id, expiresAt) + (payment.livemode ? `#client_secret=${encodeURIComponent(prepared.clientSecret)}` : ''),
    expiresAt,
    createdAt: payment.updatedAt,
  };
}
