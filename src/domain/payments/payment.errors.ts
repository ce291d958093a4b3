import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of the payment processor. */
export const PaymentErrors = errorCatalogue('payment', {
  checkoutLinkInvalid: {
    type: 'authorization_error',
    code: 'checkout_link_invalid',
    description:
      "The link to a checkout's hosted payment page was not made by this service for this booking's payment (altered, or of another business or environment), or has expired with the checkout. Nothing was recorded. A new checkout (POST /v1/bookings/{id}/checkout) makes a new link.",
    build: (why: 'invalid' | 'expired') => ({
      message: why === 'expired' ? 'This payment link has expired; start a new checkout.' : 'This payment link is not valid.',
    }),
  },
  checkoutNotPayable: {
    type: 'conflict',
    code: 'checkout_not_payable',
    description: "The hosted payment page's checkout is no longer waiting for payment (paid, declined, or replaced by a newer checkout); the message names the booking's state.",
    build: (state: string) => ({ message: `This checkout is not waiting for payment: the booking is '${state}'.` }),
  },
  sandboxPageOnly: {
    type: 'invalid_request',
    code: 'test_card_sandbox_only',
    description: "The hosted payment page's test card form (Pay, Decline) drives the sandbox processor only; in live mode the processor's own form takes the card.",
    build: () => ({ message: "Live payments are made with the processor's own payment form, not the sandbox's test card." }),
  },
  cardDeclined: {
    type: 'payment_error',
    code: 'card_declined',
    description: "The customer's card was declined; the booking returns to pending_payment so the customer may pay again (payment.failed is emitted first).",
    build: (message: string) => ({ message }),
  },
  noSavedCard: {
    type: 'payment_error',
    code: 'payment_method_missing',
    description: "There is no saved card to charge without the customer: the booking's payment did not go through checkout. Collect the amount another way.",
    build: () => ({ message: "The customer has no saved card to charge: the booking was not paid through checkout." }),
  },
  amountExceedsAvailable: {
    type: 'conflict',
    code: 'amount_exceeds_available',
    description: 'More than can be refunded or captured: `available_cents` is what is left. Ask for at most that.',
    details: ['available_cents'],
    build: (verb: string, availableCents: number, currency: string) => ({
      message: `At most ${availableCents} ${currency} cents can be ${verb} now.`,
      param: 'amount_cents',
      details: { available_cents: availableCents },
    }),
  },
  nothingRefundable: {
    type: 'conflict',
    code: 'nothing_refundable',
    description: "Without amount_cents, a refund gives what the business's cancellation policy allows, and it allows nothing now (late_cancellation_refund_percent is 0). Pass amount_cents to refund anyway.",
    build: (startAt: Date) => ({ message: `The cancellation policy allows no refund this close to start_at (${startAt.toISOString()}); pass amount_cents to refund anyway.` }),
  },
});

/** The processor itself failing: nothing was charged or refunded, and nothing was written. */
export const ProcessorErrors = errorCatalogue('processor', {
  unavailable: {
    type: 'integration_error',
    code: 'processor_unavailable',
    description: 'The payment processor did not answer, or answered with an error of its own. Nothing changed; retry with the same Idempotency-Key.',
    build: (detail: string) => ({ message: `The payment processor is unavailable (${detail}); nothing was charged or changed. Retry with the same Idempotency-Key.` }),
  },
  notConfigured: {
    type: 'integration_error',
    code: 'processor_not_configured',
    description: 'Live payments need a processor: the operator has not set STRIPE_SECRET_KEY. Test keys use the sandbox simulator and never see this.',
    build: () => ({ message: 'Live payments are not configured on this server (no STRIPE_SECRET_KEY); use a test key, or ask the operator to configure the processor.' }),
  },
  signatureInvalid: {
    type: 'invalid_request',
    code: 'webhook_signature_invalid',
    description: "A processor event whose signature does not verify against the configured signing secret (STRIPE_WEBHOOK_SECRET), or that is too old: nothing was applied.",
    build: (detail: string) => ({ message: `The processor event's signature does not verify (${detail}); nothing was applied.` }),
  },
  webhookNotConfigured: {
    type: 'integration_error',
    code: 'processor_events_not_configured',
    description: 'Processor events need their signing secret: the operator has not set STRIPE_WEBHOOK_SECRET. Nothing was applied.',
    build: () => ({ message: 'Processor events are not configured on this server (no STRIPE_WEBHOOK_SECRET); nothing was applied.' }),
  },
});
