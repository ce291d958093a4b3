import Stripe from 'stripe';
import type { IdentityProvider } from '../domain/identity/identity-provider.ts';
import { IdentityErrors } from '../domain/identity/identity.errors.ts';
import { STRIPE_PURPOSE, stripeClient, type StripeSettings } from './stripe-processor.ts';

/**
 * The identity provider on Stripe Identity (the official `stripe` SDK): a document
 * VerificationSession per start, carrying the booking in its metadata, with a matching selfie
 * when one was handed in. The customer completes it in their app with the session's client
 * secret (Stripe.js `verifyIdentity`); the verdict arrives as Stripe's
 * `identity.verification_session.verified` or `.requires_input` event.
 */
export function stripeIdentityProvider(settings: StripeSettings): IdentityProvider {
  const stripe = stripeClient(settings);
  return {
    name: 'stripe_identity',
    async startVerification(request) {
      try {
        const session = await stripe.identity.verificationSessions.create(
          {
            type: 'document',
            options: { document: { allowed_types: ['driving_license', 'id_card', 'passport'], require_matching_selfie: request.documentKinds.includes('selfie') } },
            metadata: { booking_id: request.bookingId, purpose: STRIPE_PURPOSE.identityVerification },
            ...(request.email ? { provided_details: { email: request.email } } : {}),
          },
          { idempotencyKey: request.idempotencyKey },
        );
        if (!session.client_secret) throw IdentityErrors.providerUnavailable('the session came back without a client secret');
        return { id: session.id, clientSecret: session.client_secret };
      } catch (err) {
        throw stripeIdentityFailure(err);
      }
    },
  };
}

/** Stripe's errors in the API's terms; nothing of Stripe's request (or our key) is repeated. */
function stripeIdentityFailure(err: unknown): unknown {
  if (!(err instanceof Stripe.errors.StripeError)) return err;
  if (err instanceof Stripe.errors.StripeAuthenticationError || err instanceof Stripe.errors.StripePermissionError) {
    return IdentityErrors.providerUnavailable("the provider refused this server's credentials");
  }
  if (err instanceof Stripe.errors.StripeConnectionError) return IdentityErrors.providerUnavailable('no answer from the provider');
  return IdentityErrors.providerUnavailable(`${err.type}${err.code ? ` ${err.code}` : ''}${err.statusCode ? `, HTTP ${err.statusCode}` : ''}`);
}
