import type { Database } from '../../src/db/database.ts';
import { ownerLookup } from '../../src/db/owner-lookup.ts';
import { tenantDbFactory } from '../../src/db/tenant-db.ts';
import { hashClientSecret, newClientCredentials } from '../../src/domain/apps/client-credentials.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { accountOf, createOAuthServer } from '../../src/oauth/provider.ts';

/**
 * An OAuth app's access token for `businessId`, made by the authorization server's own library
 * (a grant, then a token of it, as /oauth/token would issue), without a browser: for tests
 * that need the caller kind, not the flow (test/oauth-apps.test.ts drives the flow itself).
 */
export async function appAccessToken(db: Database, input: { platformBusinessId: string; businessId: string; livemode?: boolean; scopes: string[] }): Promise<string> {
  const livemode = input.livemode ?? false;
  const { clientId, clientSecret } = newClientCredentials(livemode);
  const app = await db.prisma.app.create({
    data: { id: newId('oauthApp'), businessId: input.platformBusinessId, livemode, name: 'Test App', clientId, clientSecretHash: hashClientSecret(clientSecret), redirectUris: ['https://app.example.com/cb'], scopes: input.scopes },
  });
  const member = await db.prisma.teamMember.findFirst({ where: { businessId: input.businessId } });
  const server = createOAuthServer({ prisma: db.prisma, tenants: { owners: ownerLookup(db.prisma), tenantDb: tenantDbFactory(db.prisma) }, cookieKey: 'test', publicUrl: 'http://127.0.0.1', onGrantRevoked: async () => {} });
  const provider = await server.anyProvider();
  const accountId = accountOf(input.businessId, livemode);
  const grant = new provider.Grant({ accountId, clientId });
  grant.addOIDCScope(input.scopes.join(' '));
  const grantId = await grant.save();
  await db.prisma.connectedApp.create({ data: { id: newId('connectedApp'), businessId: input.businessId, livemode, appId: app.id, memberId: member?.id ?? 'mem_none', scopes: input.scopes, grantId } });
  const client = await provider.Client.find(clientId);
  const token = new provider.AccessToken({ accountId, client: client!, grantId, scope: input.scopes.join(' '), gty: 'authorization_code' });
  return token.save();
}
