import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of the payment processor. */
export const PaymentErrors = errorCatalogue('payment', {
  cardDeclined: {
    type: 'payment_error',
    code: 'card_declined',
    description: "The customer's card was declined; the booking returns to pending_payment so the customer may pay again (payment.failed is emitted first).",
    build: (message: string) => ({ message }),
  },
});
