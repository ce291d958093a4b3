import Stripe from 'stripe';
import { ProcessorErrors } from '../domain/payments/payment.errors.ts';
import type { ProcessorEventInput } from '../domain/payments/processor-events.ts';
import { STRIPE_PURPOSE } from './stripe-processor.ts';

/** How old a signed event may be (Stripe's own default tolerance): an older replay is refused. */
const TOLERANCE_SECONDS = 300;

/**
 * Stripe's events, verified with the SDK's signature check against the endpoint's signing
 * secret (STRIPE_WEBHOOK_SECRET) and read into what they say about a rental's payment.
 * Deposit holds, captures, refunds and off-session charges are confirmed in the answers to
 * our own calls; what only an event can tell is whether the customer's checkout payment
 * went through.
 */
export function stripeEventReader(webhookSecret: string) {
  return function read(rawBody: string, signature: string | null): ProcessorEventInput {
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature ?? '', webhookSecret, TOLERANCE_SECONDS);
    } catch (err) {
      throw ProcessorErrors.signatureInvalid(signature ? ((err as Error).message.split('\n')[0] ?? 'no match') : 'no Stripe-Signature header');
    }
    // Signed by Stripe, but read defensively: an event without an object is about nothing of ours.
    const object = (event.data?.object ?? {}) as { id?: string; object?: string; metadata?: Record<string, string> | null };
    const base = { id: event.id, processor: 'stripe', type: event.type, processorPaymentId: String(object.id ?? '') };
    if (object.object !== 'payment_intent' || object.metadata?.purpose !== STRIPE_PURPOSE.rentalPayment) {
      return { ...base, says: { outcome: 'nothing', why: `${event.type} on a ${object.object ?? 'object'} needs nothing from this service` } };
    }
    const intent = object as Stripe.PaymentIntent;
    if (event.type === 'payment_intent.succeeded') return { ...base, says: { outcome: 'payment_succeeded' } };
    if (event.type === 'payment_intent.payment_failed') {
      const error = intent.last_payment_error;
      return { ...base, says: { outcome: 'payment_failed', failure: { code: error?.decline_code ?? error?.code ?? 'payment_failed', message: error?.message ?? 'The payment failed.' } } };
    }
    return { ...base, says: { outcome: 'nothing', why: `${event.type} needs nothing from this service` } };
  };
}

export type ProcessorEventReader = ReturnType<typeof stripeEventReader>;
