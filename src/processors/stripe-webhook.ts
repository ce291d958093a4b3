import Stripe from 'stripe';
import { ProcessorErrors } from '../domain/payments/payment.errors.ts';
import type { IdentityEventInput } from '../domain/identity/identity-events.ts';
import type { ProcessorEventInput } from '../domain/payments/processor-events.ts';
import { STRIPE_PURPOSE } from './stripe-processor.ts';

/** How old a signed event may be (Stripe's own default tolerance): an older replay is refused. */
const TOLERANCE_SECONDS = 300;

/**
 * Stripe's events, verified with the SDK's signature check against the endpoint's signing
 * secret (STRIPE_WEBHOOK_SECRET) and read into what they say about a rental's payment.
 * Deposit holds, captures, refunds and off-session charges are confirmed in the answers to
 * our own calls; what only an event can tell is whether the customer's checkout payment
 * went through, and Stripe Identity's verdict on a verification session.
 */
export function stripeEventReader(webhookSecret: string) {
  return function read(rawBody: string, signature: string | null): ProcessorEventInput | IdentityEventInput {
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature ?? '', webhookSecret, TOLERANCE_SECONDS);
    } catch (err) {
      throw ProcessorErrors.signatureInvalid(signature ? ((err as Error).message.split('\n')[0] ?? 'no match') : 'no Stripe-Signature header');
    }
    // Signed by Stripe, but read defensively: an event without an object is about nothing of ours.
    const object = (event.data?.object ?? {}) as { id?: string; object?: string; metadata?: Record<string, string> | null };
    if (object.object === 'identity.verification_session') return identityEvent(event, object as Stripe.Identity.VerificationSession);
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

/** Stripe Identity's verdict: verified, or requires_input (the check failed: its last_error says why). */
function identityEvent(event: Stripe.Event, session: Stripe.Identity.VerificationSession): IdentityEventInput {
  const base = { kind: 'identity' as const, id: event.id, processor: 'stripe', type: event.type, sessionId: String(session.id ?? '') };
  if (session.metadata?.purpose !== STRIPE_PURPOSE.identityVerification) {
    return { ...base, says: { outcome: 'nothing', why: `${event.type} on a verification session of no booking of this service` } };
  }
  if (event.type === 'identity.verification_session.verified') return { ...base, says: { outcome: 'verified' } };
  if (event.type === 'identity.verification_session.requires_input') {
    return { ...base, says: { outcome: 'rejected', failureCode: String(session.last_error?.code ?? 'requires_input').slice(0, 100) } };
  }
  return { ...base, says: { outcome: 'nothing', why: `${event.type} needs nothing from this service` } };
}

export type ProcessorEventReader = ReturnType<typeof stripeEventReader>;
