/**
 * The identity provider as the domain sees it (a port, like the payment processor): the
 * sandbox for test keys, whose verdict comes from /v1/test/bookings/{id}/identity/verify and
 * /fail; Stripe Identity for live keys, whose verdict arrives as a signed event on
 * POST /v1/processor/stripe/webhook. Calls carry an idempotency key, so a retried start
 * opens one session at the provider. An unreachable or unconfigured provider is an
 * `IdentityErrors` 502; nothing secret comes back but the session's client secret, which is
 * handed to the customer's app once and stored nowhere.
 */
export interface IdentityProvider {
  /** `sandbox`, `stripe_identity` or `unconfigured`: shown on the verification as `provider`. */
  readonly name: string;
  /** Open a verification session at the provider for the booking's customer. */
  startVerification(request: IdentityStartRequest): Promise<IdentitySession>;
}

export interface IdentityStartRequest {
  bookingId: string;
  verificationId: string;
  /** The kinds of document handed in (a selfie asks the provider to match a face). */
  documentKinds: readonly string[];
  /** The customer's email, to prefill the provider's flow (null when unknown). */
  email: string | null;
  idempotencyKey: string;
}

export interface IdentitySession {
  /** The provider's session (vs_...): its verdict events name it. */
  id: string;
  /** Completes the verification in the customer's app (Stripe.js `verifyIdentity`); shown once. */
  clientSecret: string;
}
