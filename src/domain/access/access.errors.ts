import { errorCatalogue } from '../shared/errors.ts';

/** Who may call what (the contract's "Environments and keys", "Roles and permissions"). */
export const AccessErrors = errorCatalogue('access', {
  missingApiKey: {
    type: 'authentication_error',
    code: 'missing_api_key',
    description: 'No `Authorization: Bearer <key>` header, or one that does not hold a key of the form svc_{live|test}_{pk|sk}_….',
    build: (message: string) => ({ message }),
  },
  invalidApiKey: {
    type: 'authentication_error',
    code: 'invalid_api_key',
    description: 'The key is unknown or was revoked.',
    build: (redactedKey: string) => ({ message: `Invalid API key provided: ${redactedKey}` }),
  },
  tokenExpired: {
    type: 'authentication_error',
    code: 'token_expired',
    description: "An OAuth app's access token is past its expiry (at most an hour): get a new one with the refresh token at POST /oauth/token.",
    build: () => ({ message: 'This access token expired. Get a new one from POST /oauth/token with grant_type=refresh_token.' }),
  },
  tokenRevoked: {
    type: 'authentication_error',
    code: 'token_revoked',
    description: "An OAuth app's access token was revoked: the business disconnected the app, the app was deleted, the token was revoked (RFC 7009), or a reused code or refresh token revoked its grant.",
    build: () => ({ message: 'This access token was revoked (the business disconnected the app, or the grant was revoked). Ask the business to connect the app again.' }),
  },
  environmentMismatch: {
    type: 'authentication_error',
    code: 'api_key_environment_mismatch',
    description: "This host serves one environment (sandbox or production) and the key belongs to the other.",
    build: (hostEnvironment: 'live' | 'test') => ({
      message: `This host serves the ${hostEnvironment === 'live' ? 'production' : 'sandbox'} environment; use a svc_${hostEnvironment}_ key here.`,
    }),
  },
  secretKeyRequired: {
    type: 'authorization_error',
    code: 'secret_key_required',
    description:
      "A publishable key called an operation outside the public allow list (fleet, availability, quotes, public website), or, with a booking's client_secret, selected over GraphQL a related object of that booking (its customer, payment, charges...) that REST does not show it either.",
    build: (related?: string) => ({
      message: related
        ? `${related} needs a secret key (svc_..._sk_...): with a booking's client_secret, a publishable key reads the booking itself (as GET /v1/bookings/{booking_id} shows it) and its checkout, not the objects related to them.`
        : "This operation needs a secret key (svc_..._sk_...); publishable keys may only read the fleet, availability and quotes, create a browser booking, and with that booking's client_secret read it and start its checkout.",
    }),
  },
  invalidClientSecret: {
    type: 'authentication_error',
    code: 'invalid_client_secret',
    description: "A publishable key came with a `client_secret` (X-Client-Secret or ?client_secret=) that is not a booking's of this business and environment.",
    build: () => ({ message: "The client_secret is not a booking's of this key's business and environment." }),
  },
  originNotAllowed: {
    type: 'authorization_error',
    code: 'browser_origin_not_allowed',
    description:
      "A browser (its Origin header) used a publishable key from a site the business does not allow: not in the website's allowed_origins nor a verified custom domain (in the sandbox, http://localhost and http://127.0.0.1 are allowed too). Answered without Access-Control-Allow-Origin.",
    build: (origin: string) => ({
      message: `The origin ${origin} may not use this publishable key. Add it to allowed_origins (POST /v1/website) or verify it as a custom domain.`,
    }),
  },
  sandboxOnly: {
    type: 'authorization_error',
    code: 'sandbox_only',
    description: 'A live key called a sandbox simulation (/v1/test/*); only test secret keys may.',
    build: () => ({ message: 'Sandbox simulations take only a test secret key (svc_test_sk_...); live keys never reach test data.' }),
  },
  permissionDenied: {
    type: 'authorization_error',
    code: 'permission_denied',
    description: "The key (or its team member's role) lacks the permission the operation needs; the message names it.",
    details: ['permission'],
    build: (permission: string) => ({ message: `This key lacks the permission '${permission}'.`, details: { permission } }),
  },
});
