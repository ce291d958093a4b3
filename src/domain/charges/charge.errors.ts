import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of post-trip charges (the contract's "Money"). */
export const ChargeErrors = errorCatalogue('charge', {
  disputed: {
    type: 'conflict',
    code: 'charge_disputed',
    description: 'An open dispute locks the charge: it cannot be collected (or the deposit captured for it) until the dispute is closed.',
    details: ['charge_id'],
    build: (chargeId: string) => ({ message: `Charge ${chargeId} is under an open dispute; it cannot be collected until the dispute is closed.`, details: { charge_id: chargeId } }),
  },
});
