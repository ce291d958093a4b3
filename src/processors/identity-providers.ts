import { createHash, randomBytes } from 'node:crypto';
import type { IdentityProvider } from '../domain/identity/identity-provider.ts';
import { IdentityErrors } from '../domain/identity/identity.errors.ts';
import { DomainError } from '../domain/shared/errors.ts';

/**
 * The sandbox's identity provider: it opens a session and decides nothing; the verdict is the
 * sandbox simulations' to give (/v1/test/bookings/{id}/identity/verify or /fail). Its session
 * id is derived from the idempotency key, as a real provider's idempotency would answer.
 */
export function sandboxIdentityProvider(): IdentityProvider {
  return {
    name: 'sandbox',
    async startVerification(request) {
      const id = `vs_sandbox_${createHash('sha256').update(request.idempotencyKey).digest('hex').slice(0, 24)}`;
      return { id, clientSecret: `${id}_secret_${randomBytes(12).toString('hex')}` };
    },
  };
}

/** Live mode without Stripe configured: a clear 502, nothing started. */
export function unconfiguredIdentityProvider(): IdentityProvider {
  return {
    name: 'unconfigured',
    async startVerification() {
      throw IdentityErrors.providerNotConfigured();
    },
  };
}

/**
 * A provider whose every failure is the API's: its own refusals (DomainError) pass as they
 * are; anything else (a timeout, a reset connection, an error page) is 502
 * `identity_provider_unavailable`, never a 500.
 */
export function reportingIdentityFailures(provider: IdentityProvider): IdentityProvider {
  return {
    name: provider.name,
    async startVerification(request) {
      try {
        return await provider.startVerification(request);
      } catch (err) {
        if (err instanceof DomainError) throw err;
        throw IdentityErrors.providerUnavailable(err instanceof Error ? err.message.split('\n')[0] : String(err));
      }
    },
  };
}
