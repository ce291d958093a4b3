import Stripe from 'stripe';
import { PaymentErrors, ProcessorErrors } from '../domain/payments/payment.errors.ts';
import type { PaymentProcessor } from '../domain/payments/processor.ts';
import { translatingFailures } from './reported-failures.ts';

export interface StripeSettings {
  /** STRIPE_SECRET_KEY: the platform account's secret key (sk_live_... in production). */
  secretKey: string;
  /** STRIPE_API_URL: another address for Stripe's API (a stand-in or stripe-mock); unset, Stripe's own. */
  apiUrl?: string;
  /** STRIPE_TIMEOUT_MS: how long one call may take before it counts as unanswered. */
  timeoutMs: number;
  /** Retries of a call that got no answer; safe, since every call carries an idempotency key. */
  maxNetworkRetries: number;
}

/** The SDK's client for these settings (payments and Identity share it). */
export function stripeClient(settings: StripeSettings): Stripe {
  const url = settings.apiUrl ? new URL(settings.apiUrl) : null;
  return new Stripe(settings.secretKey, {
    timeout: settings.timeoutMs,
    maxNetworkRetries: settings.maxNetworkRetries,
    telemetry: false,
    appInfo: { name: 'rental-api' },
    ...(url ? { host: url.hostname, port: url.port || (url.protocol === 'https:' ? 443 : 80), protocol: url.protocol === 'http:' ? 'http' : 'https' } : {}),
  });
}

/** The metadata field of a refund or an off-session PaymentIntent that holds the call's idempotency key, so a call whose answer was lost can be found. */
const CALL_KEY = 'idempotency_key';
/** How far Stripe's clock and ours may disagree when listing what was created since a call. */
const CLOCK_SLACK_S = 600;

/** What a rental's PaymentIntents carry, so a processor event finds its way back. */
export const STRIPE_PURPOSE = { rentalPayment: 'rental_payment', depositHold: 'deposit_hold', offSession: 'off_session_charge', identityVerification: 'identity_verification' } as const;

/**
 * The processor port on Stripe (the official `stripe` SDK), with PaymentIntents throughout:
 * - a checkout is a PaymentIntent for the booking's total on a Stripe customer of its own,
 *   with `setup_future_usage: off_session`, so the card the customer pays with is saved;
 * - a deposit hold is a PaymentIntent with `capture_method: manual` on that saved card,
 *   captured (in part: Stripe lets the rest go) or canceled later;
 * - a post-trip charge or a payment retry is an off-session PaymentIntent on the saved card;
 * - a refund is a Refund of the PaymentIntent.
 * Every call carries the domain's idempotency key; refunds and off-session PaymentIntents
 * also keep it in their metadata, which is how a call whose answer was lost is looked up. A card Stripe refuses is 402
 * `card_declined`; anything else Stripe answers or fails to answer is the caller's 502.
 */
export function stripeProcessor(settings: StripeSettings): PaymentProcessor {
  const stripe = stripeClient(settings);

  /** The card the booking was paid with, for charging it again without the customer. */
  async function savedCard(paymentReference: string | null) {
    if (!paymentReference) throw PaymentErrors.noSavedCard();
    const paid = await stripe.paymentIntents.retrieve(paymentReference);
    const customer = typeof paid.customer === 'string' ? paid.customer : (paid.customer?.id ?? null);
    const method = paid.payment_method ?? paid.last_payment_error?.payment_method ?? null;
    const paymentMethod = typeof method === 'string' ? method : (method?.id ?? null);
    if (!customer || !paymentMethod) throw PaymentErrors.noSavedCard();
    return { customer, paymentMethod };
  }

  /** An off-session PaymentIntent confirmed at once: it succeeded, or the card was refused. */
  async function chargeSavedCard(params: { paymentReference: string | null; amountCents: number; currency: string; idempotencyKey: string; manualCapture: boolean; metadata: Record<string, string> }) {
    const card = await savedCard(params.paymentReference);
    const intent = await stripe.paymentIntents.create(
      {
        amount: params.amountCents,
        currency: params.currency,
        customer: card.customer,
        payment_method: card.paymentMethod,
        off_session: true,
        confirm: true,
        ...(params.manualCapture ? { capture_method: 'manual' as const } : {}),
        metadata: params.metadata,
      },
      { idempotencyKey: params.idempotencyKey },
    );
    const expected = params.manualCapture ? 'requires_capture' : 'succeeded';
    // The bank wants the customer present (3-D Secure): for a charge without them, a refusal.
    if (intent.status !== expected) throw PaymentErrors.cardDeclined(`The card needs the customer to authenticate the payment (${intent.status}).`);
    return intent;
  }

  const processor: PaymentProcessor = {
    name: 'stripe',
    async createPayment(request) {
      const metadata = { booking_id: request.bookingId, customer_id: request.customerId, purpose: STRIPE_PURPOSE.rentalPayment };
      const customer = await stripe.customers.create({ metadata: { customer_id: request.customerId } }, { idempotencyKey: `${request.idempotencyKey}:customer` });
      const intent = await stripe.paymentIntents.create(
        {
          amount: request.amountCents,
          currency: request.currency,
          customer: customer.id,
          setup_future_usage: 'off_session',
          automatic_payment_methods: { enabled: true },
          metadata,
        },
        { idempotencyKey: request.idempotencyKey },
      );
      if (!intent.client_secret) throw ProcessorErrors.unavailable('the payment came back without a client secret');
      return { id: intent.id, clientSecret: intent.client_secret, url: null };
    },
    async refund(request) {
      const refund = await stripe.refunds.create(
        { payment_intent: request.processorPaymentId, amount: request.amountCents, metadata: { [CALL_KEY]: request.idempotencyKey } },
        { idempotencyKey: request.idempotencyKey },
      );
      if (refund.status === 'failed' || refund.status === 'canceled') throw ProcessorErrors.unavailable(`the refund ${refund.status}`);
      return { id: refund.id };
    },
    async holdDeposit(request) {
      const intent = await chargeSavedCard({ ...request, manualCapture: true, metadata: { booking_id: request.bookingId, purpose: STRIPE_PURPOSE.depositHold } });
      return { id: intent.id };
    },
    async captureDeposit(request) {
      const intent = await stripe.paymentIntents.capture(request.holdId, { amount_to_capture: request.amountCents }, { idempotencyKey: request.idempotencyKey });
      return { id: intent.id };
    },
    async releaseDeposit(request) {
      try {
        await stripe.paymentIntents.cancel(request.holdId, {}, { idempotencyKey: request.idempotencyKey });
      } catch (err) {
        // Already let go (expired or canceled before): what was asked is so.
        if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state' && (err.payment_intent?.status === 'canceled')) return;
        throw err;
      }
    },
    async chargeOffSession(request) {
      const metadata = { booking_id: request.bookingId, customer_id: request.customerId, purpose: STRIPE_PURPOSE.offSession, [CALL_KEY]: request.idempotencyKey };
      const intent = await chargeSavedCard({ ...request, manualCapture: false, metadata });
      return { id: intent.id };
    },
    async lookUp(call) {
      switch (call.kind) {
        case 'refund': {
          for await (const refund of stripe.refunds.list({ payment_intent: call.processorPaymentId, limit: 100 })) {
            if (refund.metadata?.[CALL_KEY] !== call.idempotencyKey) continue;
            if (refund.status === 'failed' || refund.status === 'canceled') return { status: 'refused', code: refund.failure_reason ?? `refund_${refund.status}`, message: `the refund ${refund.status}` };
            return refund.status === 'succeeded' ? { status: 'succeeded', id: refund.id } : { status: 'pending' };
          }
          return { status: 'absent' };
        }
        case 'capture':
        case 'release': {
          // One capture and one cancel per hold: the hold's status tells which happened.
          const hold = await stripe.paymentIntents.retrieve(call.holdId);
          const done = call.kind === 'capture' ? 'succeeded' : 'canceled';
          if (hold.status === done) return { status: 'succeeded', id: hold.id };
          if (hold.status === 'requires_capture') return { status: 'absent' };
          return { status: 'refused', code: 'payment_intent_unexpected_state', message: `the hold is ${hold.status}` };
        }
        case 'charge': {
          if (!call.paymentReference) return { status: 'absent' };
          const paid = await stripe.paymentIntents.retrieve(call.paymentReference);
          const customer = typeof paid.customer === 'string' ? paid.customer : (paid.customer?.id ?? null);
          if (!customer) return { status: 'absent' };
          // A customer's own PaymentIntents since the call, listed (Stripe's search may lag behind a write).
          const since = Math.floor(call.since.getTime() / 1000) - CLOCK_SLACK_S;
          for await (const intent of stripe.paymentIntents.list({ customer, created: { gte: since }, limit: 100 })) {
            if (intent.metadata?.[CALL_KEY] !== call.idempotencyKey) continue;
            if (intent.status === 'succeeded') return { status: 'succeeded', id: intent.id };
            if (intent.status === 'processing') return { status: 'pending' };
            // In the terms a declined call is answered in (stripeFailure).
            const failure = intent.last_payment_error;
            const reason = failure?.decline_code ?? failure?.code;
            const message = failure ? `${failure.message ?? 'Your card was declined.'}${reason && reason !== 'card_declined' ? ` (${reason})` : ''}` : `The card needs the customer to authenticate the payment (${intent.status}).`;
            return { status: 'refused', code: 'card_declined', message };
          }
          return { status: 'absent' };
        }
      }
    },
  };
  return translatingFailures(processor, stripeFailure);
}

/** Stripe's errors in the API's terms; nothing of Stripe's request (or our key) is repeated. */
function stripeFailure(err: unknown): unknown {
  if (!(err instanceof Stripe.errors.StripeError)) return err;
  if (err instanceof Stripe.errors.StripeCardError) {
    const reason = err.decline_code ?? err.code;
    return PaymentErrors.cardDeclined(`${err.message}${reason && reason !== 'card_declined' ? ` (${reason})` : ''}`);
  }
  if (err instanceof Stripe.errors.StripeAuthenticationError || err instanceof Stripe.errors.StripePermissionError) {
    return ProcessorErrors.unavailable('the processor refused this server\'s credentials');
  }
  if (err instanceof Stripe.errors.StripeConnectionError) return ProcessorErrors.unavailable('no answer from the processor');
  return ProcessorErrors.unavailable(`${err.type}${err.code ? ` ${err.code}` : ''}${err.statusCode ? `, HTTP ${err.statusCode}` : ''}`);
}
