import type { AppConfig } from '../config.ts';
import type { PaymentProcessor } from '../domain/payments/processor.ts';
import { reportingFailures } from './reported-failures.ts';
import { sandboxProcessor } from './sandbox-processor.ts';
import { unconfiguredProcessor } from './unconfigured-processor.ts';

export type Processors = { test: PaymentProcessor; live: PaymentProcessor };

/**
 * Test keys: the sandbox simulator. Live keys: Stripe when STRIPE_SECRET_KEY is set, else a
 * clear 502. The Stripe SDK is loaded only when configured (it is large, and most
 * installations that run without it start faster and smaller).
 */
export async function configuredProcessors(config: AppConfig): Promise<Processors> {
  const { secretKey, ...stripe } = config.stripe;
  if (!secretKey) return { test: sandboxProcessor(), live: unconfiguredProcessor() };
  const { stripeProcessor } = await import('./stripe-processor.ts');
  return { test: sandboxProcessor(), live: stripeProcessor({ secretKey, ...stripe }) };
}

/** Both environments' processors, each failure in the API's terms (reportingFailures). */
export const reportingProcessors = (p: Processors): Processors => ({ test: reportingFailures(p.test), live: reportingFailures(p.live) });
