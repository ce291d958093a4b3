import { errorCatalogue } from '../domain/shared/errors.ts';

/** The consent page of OAuth apps (/oauth/consent): a signed-in team member approving or denying an app. */
export const OAuthErrors = errorCatalogue('oauth', {
  authorizationExpired: {
    type: 'invalid_request',
    code: 'authorization_expired',
    status: 404,
    description: 'The authorization request behind the consent page is unknown or older than 10 minutes: start again from the app.',
    build: () => ({ message: 'This authorization request is unknown or expired (10 minutes). Start again from the app.' }),
  },
  authorizationOtherBrowser: {
    type: 'invalid_request',
    code: 'authorization_other_browser',
    description: 'The consent page was opened in a browser other than the one that started the authorization at /oauth/authorize (or its cookies were cleared): a business approves only what its own browser started.',
    build: () => ({ message: 'This authorization was started in another browser. Start again from the app, in this browser.' }),
  },
  approverRoleRequired: {
    type: 'authorization_error',
    code: 'approver_role_required',
    description: 'Only an owner or admin of the business may connect an OAuth app.',
    build: (role: string) => ({ message: `Only an owner or admin may connect an app to the business; you are signed in as ${role}.` }),
  },
  scopeNotHeld: {
    type: 'authorization_error',
    code: 'scope_not_held',
    description: 'The app asks for permissions the approving member does not hold: a member grants only what it may do itself.',
    build: (scopes: string[]) => ({ message: `You cannot grant permissions you do not hold: ${scopes.join(', ')}.` }),
  },
  appEnvironmentMismatch: {
    type: 'authorization_error',
    code: 'app_environment_mismatch',
    description: 'A test-mode app connects only in test mode, and a live app only in live mode: sign in to the ops screen in the app\'s environment.',
    build: (appLive: boolean) => ({ message: `This is a ${appLive ? 'live' : 'test-mode'} app; it connects only to a business in ${appLive ? 'live' : 'test'} mode. Sign in to the ops screen in that mode.` }),
  },
});
