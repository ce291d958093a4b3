import { createHash, randomInt } from 'node:crypto';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { AccessErrors } from '../domain/access/access.errors.ts';
import { isPermission, ROLE_PERMISSIONS, type Permission, type Principal, type TeamRole } from '../domain/access/permissions.ts';
import { CommonErrors } from '../domain/shared/common.errors.ts';
import { newId } from '../domain/shared/ids.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^svc_(live|test)_(pk|sk)_[0-9A-Za-z]{32,}$/;
const KEY_RANDOM_LENGTH = 40;

export type KeyKind = 'secret' | 'publishable';

/** Keys live outside any one tenant's scope: they are how a request finds its tenant. */
type KeyStore = PrismaClient | Prisma.TransactionClient;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export interface CreatedKey {
  id: string;
  key: string;
  livemode: boolean;
  kind: KeyKind;
}

/** Make a key; its full text is returned once and only its hash is stored (the contract). */
export async function createApiKey(
  db: KeyStore,
  input: { businessId: string; livemode: boolean; kind: KeyKind; name?: string; memberId?: string; permissions?: string[] },
): Promise<CreatedKey> {
  const permissions = input.permissions ?? [];
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length) throw CommonErrors.parameterInvalid('permissions', `Unknown permissions: ${unknown.join(', ')}`);
  const key = `svc_${input.livemode ? 'live' : 'test'}_${input.kind === 'secret' ? 'sk' : 'pk'}_${randomBase62(KEY_RANDOM_LENGTH)}`;
  const id = newId('apiKey');
  await db.apiKey.create({
    data: {
      id,
      businessId: input.businessId,
      livemode: input.livemode,
      kind: input.kind,
      secretHash: hashKey(key),
      redacted: `${key.slice(0, 12)}…${key.slice(-4)}`,
      name: input.name ?? null,
      memberId: input.memberId ?? null,
      permissions,
    },
  });
  return { id, key, livemode: input.livemode, kind: input.kind };
}

export async function revokeApiKey(db: KeyStore, businessId: string, keyId: string): Promise<boolean> {
  const { count } = await db.apiKey.updateMany({ where: { id: keyId, businessId, revokedAt: null }, data: { revokedAt: new Date() } });
  principalCache.clear();
  return count > 0;
}

// Keys are looked up on every request; a short cache keeps that off the hot path. A key
// revoked by another process stops working within this many milliseconds.
const PRINCIPAL_CACHE_MS = 5_000;
const principalCache = new Map<string, { principal: Principal; until: number }>();

const otherCaches: (() => void)[] = [];

/** Forget every cached caller (a sandbox clock moved): the next request reads its key again. */
export function forgetCachedPrincipals(): void {
  principalCache.clear();
  for (const forget of otherCaches) forget();
}

/** Another kind of caller's cache (OAuth apps' tokens, src/oauth/token-principal.ts), forgotten with the keys'. */
export function forgetAlongWithKeys(forget: () => void): void {
  otherCaches.push(forget);
}

/** The credential of an `Authorization: Bearer <credential>` header (undefined when it has none). */
export function bearerToken(authorization: string | null | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/**
 * Resolve the `Authorization: Bearer <key>` header to the caller. Missing or malformed:
 * `missing_api_key`; unknown or revoked: `invalid_api_key` (both 401). A key seen in the
 * last few seconds answers at once, without a promise.
 */
export function authenticate(db: KeyStore, authorization: string | null | undefined, key = bearerToken(authorization)): Principal | Promise<Principal> {
  if (key === undefined) {
    throw AccessErrors.missingApiKey('No valid API key provided. Send it as "Authorization: Bearer svc_test_sk_...".');
  }
  if (!KEY_PATTERN.test(key)) {
    throw AccessErrors.missingApiKey('The Authorization header does not hold an API key of the form svc_{live|test}_{pk|sk}_....');
  }
  const hash = hashKey(key);
  const cached = principalCache.get(hash);
  if (cached && cached.until > Date.now()) return cached.principal;
  return lookUp(db, key, hash);
}

/** The key's row, as the caller it stands for (then cached). */
async function lookUp(db: KeyStore, key: string, hash: string): Promise<Principal> {
  const row = await db.apiKey.findUnique({ where: { secretHash: hash }, include: { member: true, business: { select: { sandboxClockOffsetSeconds: true } } } });
  if (!row || row.revokedAt) {
    throw AccessErrors.invalidApiKey(`${key.slice(0, 12)}…${key.slice(-4)}`);
  }
  const principal: Principal = {
    businessId: row.businessId,
    livemode: row.livemode,
    keyId: row.id,
    keyKind: row.kind,
    memberId: row.memberId,
    permissions: permissionsOf(row.member?.role ?? null, row.member?.permissions ?? [], row.permissions),
    clockOffsetMs: row.livemode ? 0 : row.business.sandboxClockOffsetSeconds * 1000,
  };
  if (principalCache.size > 10_000) principalCache.clear();
  principalCache.set(hash, { principal, until: Date.now() + PRINCIPAL_CACHE_MS });
  return principal;
}

export function permissionsOf(role: TeamRole | null, memberExtra: string[], keyPermissions: string[]): Principal['permissions'] {
  if (role) return new Set([...ROLE_PERMISSIONS[role], ...memberExtra.filter(isPermission)]);
  if (keyPermissions.length) return new Set(keyPermissions.filter(isPermission) as Permission[]);
  return 'all';
}
