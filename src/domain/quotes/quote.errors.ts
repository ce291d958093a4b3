import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of quotes and of bookings made from them (the contract's "Quote"). */
export const QuoteErrors = errorCatalogue('quote', {
  expired: {
    type: 'validation_error',
    code: 'quote_expired',
    description: 'The booking names a quote whose price guarantee ran out (expires_at); make a new quote or book without one.',
    build: (expiresAt: Date) => ({ message: `Invalid quote_id: the quote expired at ${expiresAt.toISOString()}.`, param: 'quote_id' }),
  },
});
