import { errorCatalogue } from '../domain/shared/errors.ts';

/** The ops screen's sign-in and session (/ops): team members in a browser, never an API key. */
export const OpsErrors = errorCatalogue('ops', {
  signInLinkInvalid: {
    type: 'authentication_error',
    code: 'sign_in_link_invalid',
    description: 'The ops screen sign-in link is unknown, was used already or expired (15 minutes); ask for a new one (`npm run admin -- member sign-in-link`).',
    build: () => ({ message: 'This sign-in link is unknown, used or expired. Ask an administrator for a new one (npm run admin -- member sign-in-link).' }),
  },
  sessionRequired: {
    type: 'authentication_error',
    code: 'session_required',
    description: 'No ops screen session: the cookie is missing, expired, or its session was signed out. Sign in again with a new link.',
    build: () => ({ message: 'Not signed in to the ops screen (or the session expired). Sign in with a link from `npm run admin -- member sign-in-link`.' }),
  },
  csrfTokenInvalid: {
    type: 'authorization_error',
    code: 'csrf_token_invalid',
    description: 'A state-changing request authenticated by the ops session cookie lacks the session\'s CSRF token (X-CSRF-Token header, from GET /ops/session) or sends a wrong one.',
    build: () => ({ message: 'Requests signed in by the ops session cookie must send its CSRF token in the X-CSRF-Token header (GET /ops/session gives it).' }),
  },
  originNotAllowed: {
    type: 'authorization_error',
    code: 'origin_not_allowed',
    description: 'A request authenticated by the ops session cookie (a POST or the WebSocket) came from a page of another origin.',
    build: (origin: string) => ({ message: `Requests from ${origin} may not use the ops session; only the ops screen of this service may.` }),
  },
  screenNotBuilt: {
    type: 'internal_error',
    code: 'ops_screen_not_built',
    status: 503,
    description: 'The ops screen\'s page was not built (dist/ops is missing): `npm start` builds it, as does `node scripts/build.mjs`.',
    build: () => ({ message: 'The ops screen is not built on this server: run `node scripts/build.mjs` (npm start runs it).' }),
  },
});
