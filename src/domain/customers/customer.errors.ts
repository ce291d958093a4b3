import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of the customers aggregate. */
export const CustomerErrors = errorCatalogue('customer', {
  exists: {
    type: 'conflict',
    code: 'customer_exists',
    description:
      'A customer of the business (in this environment) already has this email, compared without regard to case. `customer_id` names them: use it, or create the customer with another email.',
    details: ['customer_id'],
    build: (customerId: string) => ({ message: `A customer with this email already exists: ${customerId}.`, param: 'email', details: { customer_id: customerId } }),
  },
});
