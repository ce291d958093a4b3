import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of OAuth app registration. */
export const AppErrors = errorCatalogue('app', {
  redirectUriNotAllowed: {
    type: 'validation_error',
    code: 'redirect_uri_not_allowed',
    description:
      'A redirect URI is not an absolute https URL without a fragment (test-mode apps may also use http://localhost or http://127.0.0.1 on any port). Redirect URIs are matched exactly, so each must be the very URL the app sends.',
    build: (message: string) => ({ message, param: 'redirect_uris' }),
  },
});
