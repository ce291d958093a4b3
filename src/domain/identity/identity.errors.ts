import { errorCatalogue } from '../shared/errors.ts';

/** The identity provider failing: nothing was started, and nothing was written. */
export const IdentityErrors = errorCatalogue('identity', {
  providerUnavailable: {
    type: 'integration_error',
    code: 'identity_provider_unavailable',
    description: 'The identity provider did not answer, or answered with an error of its own. Nothing was started; retry with the same Idempotency-Key.',
    build: (detail: string) => ({ message: `The identity provider is unavailable (${detail}); nothing was started. Retry with the same Idempotency-Key.` }),
  },
  providerNotConfigured: {
    type: 'integration_error',
    code: 'identity_provider_not_configured',
    description: 'Live identity verification needs Stripe Identity: the operator has not set STRIPE_SECRET_KEY. Test keys use the sandbox and never see this.',
    build: () => ({ message: 'Live identity verification is not configured on this server (no STRIPE_SECRET_KEY); use a test key, or ask the operator to configure Stripe.' }),
  },
});
