import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { OwnerLookup } from '../db/owner-lookup.ts';
import type { TenantDbFactory } from '../db/tenant-db.ts';
import { forgetCachedPrincipals } from '../platform/api-keys.ts';

/*
 * oidc-provider's storage in the project's database (model OAuthStore): one row per stored
 * object of a kind. The library makes, checks and consumes every code and token; this only
 * keeps what it hands over. Two kinds are read from the project's own tables instead:
 * `Client` (an OAuth app, src/domain/apps/) and, for a `Grant`, whether the business ended its
 * connection (ConnectedApp.revokedAt): an ended connection's grant is gone for the library,
 * so no token of it refreshes. Those are tenants' rows: their owner is asked of the owner
 * look-up (by client_id, by grant), then the row is read through that owner's scope.
 */

/** How the authorization server reaches tenants' rows: whose a client_id or grant is, then that tenant's scope. */
export interface OAuthTenants {
  owners: OwnerLookup;
  tenantDb: TenantDbFactory;
}

/** The app of a client_id, read in its owner's scope (null: none, or deleted). */
export async function appOfClient(tenants: OAuthTenants, clientId: string) {
  if (!storableId(clientId)) return null;
  const owner = await tenants.owners.resolveOwner('oauth_client', clientId);
  return owner ? tenants.tenantDb(owner).app.findFirst({ where: { clientId, deletedAt: null } }) : null;
}

/** The connection of a grant with its app's id, name and deletion, read in its owner's scope (null: none). */
export async function connectionOfGrant(tenants: OAuthTenants, grantId: string) {
  if (!storableId(grantId)) return null;
  const owner = await tenants.owners.resolveOwner('oauth_grant', grantId);
  return owner
    ? tenants.tenantDb(owner).connectedApp.findFirst({ where: { grantId }, include: { app: { select: { id: true, name: true, deletedAt: true } } } })
    : null;
}

/**
 * Whether an id a client sent (a client_id, a code, a token, an interaction's uid) can name a
 * stored row at all. PostgreSQL refuses text holding a NUL byte (the query fails, and the
 * library would answer server_error 500), and no id is longer than this: such an id is
 * simply unknown, which the library answers as it answers any unknown one.
 */
export function storableId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= 512 && !id.includes('\0');
}

const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/** The client metadata of an app, as oidc-provider reads it (its secret's hash: see compareClientSecret in provider.ts). */
export function clientMetadata(app: { clientId: string; clientSecretHash: string; redirectUris: string[]; scopes: string[]; name: string }): AdapterPayload {
  return {
    client_id: app.clientId,
    client_secret: app.clientSecretHash,
    client_name: app.name,
    redirect_uris: app.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: app.scopes.join(' '),
  };
}

export function prismaAdapter(prisma: PrismaClient, tenants: OAuthTenants): new (name: string) => Adapter {
  return class PrismaAdapter implements Adapter {
    constructor(readonly name: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const data = {
        payload: payload as Prisma.InputJsonValue,
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      await prisma.oAuthStore.upsert({ where: { kind_id: { kind: this.name, id } }, create: { kind: this.name, id, ...data }, update: data });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (!storableId(id)) return undefined;
      if (this.name === 'Client') {
        const app = await appOfClient(tenants, id);
        return app ? clientMetadata(app) : undefined;
      }
      const row = await prisma.oAuthStore.findUnique({ where: { kind_id: { kind: this.name, id } } });
      if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= Date.now() && this.name !== 'AccessToken')) return undefined;
      if (this.name === 'Grant') {
        const connection = await connectionOfGrant(tenants, id);
        if (connection?.revokedAt) return undefined;
      }
      const payload = row.payload as AdapterPayload;
      return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      if (!storableId(uid)) return undefined;
      const row = await prisma.oAuthStore.findFirst({ where: { kind: this.name, uid } });
      if (!row || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return undefined;
      return row.payload as AdapterPayload;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      if (!storableId(userCode)) return undefined;
      const row = await prisma.oAuthStore.findFirst({ where: { kind: this.name, userCode } });
      if (!row || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return undefined;
      return row.payload as AdapterPayload;
    }

    async consume(id: string): Promise<void> {
      // Atomic: of two uses of one code (or refresh token) at once, only one consumes it; the
      // other is refused as the library refuses a used one it has read (invalid_grant).
      const { count } = await prisma.oAuthStore.updateMany({ where: { kind: this.name, id, consumedAt: null }, data: { consumedAt: new Date() } });
      if (count === 1) return;
      // Imported here: the library is loaded on the first OAuth request, never at start-up (src/oauth/provider.ts).
      const { errors } = await import('oidc-provider');
      throw new errors.InvalidGrant(`${this.name === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`);
    }

    async destroy(id: string): Promise<void> {
      if (!storableId(id)) return;
      if (this.name === 'AccessToken') {
        await prisma.oAuthStore.updateMany({ where: { kind: this.name, id, revokedAt: null }, data: { revokedAt: new Date() } });
        forgetCachedPrincipals();
      } else await prisma.oAuthStore.deleteMany({ where: { kind: this.name, id } });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      if (!GRANTABLE.has(this.name)) return;
      // An access token stays as a tombstone (its bearer is told token_revoked); the rest go.
      if (this.name === 'AccessToken') {
        await prisma.oAuthStore.updateMany({ where: { kind: this.name, grantId, revokedAt: null }, data: { revokedAt: new Date() } });
        // Callers cached in this process are read again (in others within 5 s).
        forgetCachedPrincipals();
      } else await prisma.oAuthStore.deleteMany({ where: { kind: this.name, grantId } });
    }
  };
}

/**
 * Forget what the authorization server no longer needs: rows a day past their expiry (codes,
 * tokens, interactions, and the access tokens kept as revoked), in batches. Run by the
 * maintenance jobs with the idempotency sweep.
 */
export async function sweepExpiredOAuthRows(prisma: PrismaClient, now: Date): Promise<number> {
  const before = new Date(now.getTime() - 86_400_000);
  const { count } = await prisma.oAuthStore.deleteMany({ where: { expiresAt: { lt: before } } });
  return count;
}
