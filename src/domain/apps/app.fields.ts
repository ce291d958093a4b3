import type { PublicFields } from '../shared/presenter.ts';

export const OAUTH_APP_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  name: { kind: 'string' },
  clientId: { kind: 'string', description: 'The OAuth client_id the app sends to /oauth/authorize and /oauth/token.' },
  redirectUris: { kind: 'strings', description: 'The redirect URIs /oauth/authorize accepts, each matched exactly.' },
  scopes: { kind: 'strings', description: 'The permissions (bookings:read ...) the app may ask a business for.' },
  createdAt: { kind: 'datetime' },
};

export const CONNECTED_APP_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  appId: { kind: 'id', description: 'The app (app_...).' },
  memberId: { kind: 'id', description: 'The team member who approved the connection (mem_...).' },
  scopes: { kind: 'strings', description: 'The permissions granted to the app: its tokens can do exactly these.' },
  createdAt: { kind: 'datetime' },
};
