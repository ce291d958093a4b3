import { ProcessorErrors } from '../domain/payments/payment.errors.ts';
import type { PaymentProcessor } from '../domain/payments/processor.ts';
import { DomainError } from '../domain/shared/errors.ts';

/**
 * A processor whose every failure is the API's: its own refusals (DomainError: a declined
 * card) pass as they are; anything else (a timeout, a reset connection, an error page) is
 * 502 `processor_unavailable`, never a 500. Applied once, to whichever adapter serves.
 */
export function reportingFailures(processor: PaymentProcessor): PaymentProcessor {
  const guarded = { ...processor } as Record<string, unknown>;
  for (const [name, method] of Object.entries(processor)) {
    if (typeof method !== 'function') continue;
    guarded[name] = async (...args: unknown[]) => {
      try {
        return await (method as (...a: unknown[]) => Promise<unknown>).apply(processor, args);
      } catch (err) {
        throw err instanceof DomainError ? err : ProcessorErrors.unavailable(err instanceof Error ? err.message : String(err));
      }
    };
  }
  return guarded as unknown as PaymentProcessor;
}
