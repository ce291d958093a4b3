import type { PrismaClient } from '../generated/prisma/client.ts';
import { AccessErrors } from '../domain/access/access.errors.ts';
import { isPermission, type Principal } from '../domain/access/permissions.ts';
import { forgetAlongWithKeys } from '../platform/api-keys.ts';
import { connectionOfGrant } from './adapter.ts';
import { parseAccount, type OAuthServer } from './provider.ts';

/*
 * An OAuth app's access token as a caller of the API (the edge's principal step): it acts on
 * the connected business, in the grant's environment, with exactly the granted scopes. The
 * library reads the token (src/oauth/provider.ts); the connection decides whether it still
 * stands (a disconnected business, a deleted app: token_revoked).
 */

/** The library's opaque tokens: 256 random bits, base64url. API keys (svc_...) never look like this. */
export const ACCESS_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

// As for keys: a token seen in the last few seconds answers at once; a disconnection in
// another process takes effect within this many milliseconds, in this one at once.
const CACHE_MS = 5_000;
const cache = new Map<string, { principal: Principal; until: number }>();
forgetAlongWithKeys(() => cache.clear());

export function appTokenPrincipal(prisma: PrismaClient, oauth: OAuthServer, token: string): Principal | Promise<Principal> {
  const cached = cache.get(token);
  if (cached && cached.until > Date.now()) return cached.principal;
  return lookUp(prisma, oauth, token);
}

async function lookUp(prisma: PrismaClient, oauth: OAuthServer, token: string): Promise<Principal> {
  const at = await (await oauth.anyProvider()).AccessToken.find(token, { ignoreExpiration: true });
  if (!at) {
    const tombstone = await prisma.oAuthStore.findUnique({ where: { kind_id: { kind: 'AccessToken', id: token } }, select: { revokedAt: true } });
    if (tombstone?.revokedAt) throw AccessErrors.tokenRevoked();
    throw AccessErrors.invalidApiKey(`${token.slice(0, 6)}…${token.slice(-4)}`);
  }
  if (at.isExpired) throw AccessErrors.tokenExpired();
  const account = at.accountId ? parseAccount(at.accountId) : null;
  const connection = at.grantId ? await connectionOfGrant(oauth.tenants, at.grantId) : null;
  if (!account || !connection || connection.revokedAt || connection.app.deletedAt || connection.businessId !== account.businessId || connection.livemode !== account.livemode) {
    throw AccessErrors.tokenRevoked();
  }
  const business = await oauth.tenants.tenantDb(account).business.findUniqueOrThrow({ where: { id: account.businessId }, select: { sandboxClockOffsetSeconds: true } });
  const principal: Principal = {
    businessId: account.businessId,
    livemode: account.livemode,
    // Rate limits and the audit log count the connection: one app at one business.
    keyId: connection.id,
    keyKind: 'secret',
    memberId: null,
    // The token's scopes, as far as the connection still grants them (approving the app again
    // with fewer scopes narrows the tokens already issued at once).
    permissions: new Set(String(at.scope ?? '').split(' ').filter(isPermission).filter((s) => connection.scopes.includes(s))),
    clockOffsetMs: account.livemode ? 0 : business.sandboxClockOffsetSeconds * 1000,
    app: { id: connection.app.id, name: connection.app.name },
  };
  if (cache.size > 10_000) cache.clear();
  const expiresAt = (at.exp ?? 0) * 1000;
  cache.set(token, { principal, until: Math.min(Date.now() + CACHE_MS, expiresAt) });
  return principal;
}
