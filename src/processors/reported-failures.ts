import { ProcessorErrors } from '../domain/payments/payment.errors.ts';
import type { PaymentProcessor } from '../domain/payments/processor.ts';
import { DomainError } from '../domain/shared/errors.ts';

/** The processor with every call's failure passed through `translate` (what it returns is thrown). */
export function translatingFailures(processor: PaymentProcessor, translate: (err: unknown) => unknown): PaymentProcessor {
  const translated = { ...processor } as Record<string, unknown>;
  for (const [name, method] of Object.entries(processor)) {
    if (typeof method !== 'function') continue;
    translated[name] = async (...args: unknown[]) => {
      try {
        return await (method as (...a: unknown[]) => Promise<unknown>).apply(processor, args);
      } catch (err) {
        throw translate(err);
      }
    };
  }
  return translated as unknown as PaymentProcessor;
}

/**
 * A processor whose every failure is the API's: its own refusals (DomainError: a declined
 * card) pass as they are; anything else (a timeout, a reset connection, an error page) is
 * 502 `processor_unavailable`, never a 500. Applied once, to whichever adapter serves.
 */
export function reportingFailures(processor: PaymentProcessor): PaymentProcessor {
  return translatingFailures(processor, (err) => (err instanceof DomainError ? err : ProcessorErrors.unavailable(err instanceof Error ? err.message : String(err))));
}
