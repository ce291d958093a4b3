import { ProcessorErrors } from '../domain/payments/payment.errors.ts';
import type { PaymentProcessor } from '../domain/payments/processor.ts';

/** Live mode without a processor configured: every call is a clear 502, nothing moves. */
export function unconfiguredProcessor(): PaymentProcessor {
  const refuse = async (): Promise<never> => {
    throw ProcessorErrors.notConfigured();
  };
  return { name: 'unconfigured', createPayment: refuse, refund: refuse, holdDeposit: refuse, captureDeposit: refuse, releaseDeposit: refuse, chargeOffSession: refuse, lookUp: refuse };
}
