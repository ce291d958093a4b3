/**
 * The payment processor as the domain sees it (a port). Each environment has its own: the
 * sandbox simulator for test keys, Stripe for live ones (src/processors/). Calls carry an
 * idempotency key, so a retried request never moves money twice at the processor either.
 * A refusal is a `PaymentErrors` error (402 payment_error); an unreachable or misconfigured
 * processor is a `ProcessorErrors` one (502 integration_error). Nothing secret comes back:
 * a payment method is only ever its brand, last four digits and expiry.
 */
export interface PaymentProcessor {
  /** `sandbox` or `stripe`: shown nowhere, kept for logs and tests. */
  readonly name: string;
  /** A payment the customer completes with `clientSecret` (a PaymentIntent, captured when confirmed). */
  createPayment(request: { bookingId: string; customerId: string; amountCents: number; currency: string; idempotencyKey: string }): Promise<ProcessorPayment>;
  /** Give back part or all of a collected payment. */
  refund(request: { processorPaymentId: string; amountCents: number; idempotencyKey: string }): Promise<{ id: string }>;
  /**
   * Hold the security deposit on the customer's card (an authorization, captured later only
   * if needed). `paymentReference` is the booking's payment at the processor: the card it was
   * paid with is the one held (null when the booking was not paid through checkout).
   */
  holdDeposit(request: { bookingId: string; paymentReference: string | null; amountCents: number; currency: string; idempotencyKey: string }): Promise<{ id: string }>;
  /** Take part or all of a held deposit; the rest of the hold is let go. */
  captureDeposit(request: { holdId: string; amountCents: number; idempotencyKey: string }): Promise<{ id: string }>;
  /** Charge the customer's saved card (the one `paymentReference` was paid with) without them present: a post-trip charge or a payment retry. */
  chargeOffSession(request: { bookingId: string; customerId: string; paymentReference: string | null; amountCents: number; currency: string; idempotencyKey: string }): Promise<{ id: string }>;
  /** Let a held deposit go (harmless to repeat). */
  releaseDeposit(request: { holdId: string; idempotencyKey: string }): Promise<void>;
  /**
   * What became of a call whose answer was lost (the process that made it died): carried
   * out, refused, still being decided, or never received. It only asks; nothing moves.
   */
  lookUp(call: LostCall): Promise<CallOutcome>;
}

/** A call made earlier, described as it was made (the same idempotency key, the same object). */
export type LostCall =
  | { kind: 'refund'; idempotencyKey: string; processorPaymentId: string; amountCents: number }
  | { kind: 'capture'; idempotencyKey: string; holdId: string; amountCents: number }
  | { kind: 'release'; idempotencyKey: string; holdId: string }
  /** An off-session charge of the card `paymentReference` was paid with, made at or after `since`. */
  | { kind: 'charge'; idempotencyKey: string; paymentReference: string | null; amountCents: number; currency: string; since: Date };

export type CallOutcome =
  /** Carried out: `id` is what the call answered (the refund, the capture, the payment). */
  | { status: 'succeeded'; id: string }
  /** Received and refused (a declined card, a hold already gone). */
  | { status: 'refused'; code: string; message: string }
  /** Received, not decided yet (a refund or payment still processing): ask again later. */
  | { status: 'pending' }
  /** Never received: nothing moved. */
  | { status: 'absent' };

export interface ProcessorPayment {
  /** The processor's id of the payment (pi_...). */
  id: string;
  /** Handed to the customer's browser or app to pay; never stored. */
  clientSecret: string;
  /** A hosted payment page, where the processor offers one. */
  url: string | null;
}
