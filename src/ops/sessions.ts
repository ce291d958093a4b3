import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Principal } from '../domain/access/permissions.ts';
import { permissionsOf } from '../platform/api-keys.ts';
import { OpsErrors } from './ops.errors.ts';

/**
 * Team members on the ops screen (/ops): a one-time sign-in link (made by the admin command)
 * becomes a session whose token lives in an HttpOnly cookie. Only SHA-256 hashes of the link
 * and session tokens are stored. The session acts as the member, exactly as a key bound to the
 * member does (the member's role and extra permissions, in the environment chosen with the link).
 */

/** How long a sign-in link may be used (once). */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** How long a session lasts; then the member signs in again. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;
export const SESSION_COOKIE = 'ops_session';
export const CSRF_HEADER = 'x-csrf-token';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const randomToken = () => randomBytes(32).toString('base64url');
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** Ids of links and sessions: internal rows, never API objects (so no prefix of the API's id table). */
const rowId = (prefix: 'osl' | 'oss') => `${prefix}_${randomUUID().replaceAll('-', '')}`;

/** The session's CSRF token: derived from the cookie's token (one way), so nothing more is stored. */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`ops-csrf\u0000${sessionToken}`).digest('base64url');
}

/** `given` is the session's CSRF token (compared in constant time). */
export function csrfTokenMatches(sessionToken: string, given: string | null): boolean {
  if (!given) return false;
  const a = Buffer.from(csrfTokenOf(sessionToken));
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The ops session cookie's token in a Cookie header (null when there is none). */
export function sessionTokenOf(cookieHeader: string | null | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return TOKEN.test(value) ? value : null;
  }
  return null;
}

/** The page that uses a sign-in link's token; the token travels in the fragment, which browsers never send to a server (nor in a Referer). */
export function signInUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/ops/sign-in#token=${token}`;
}

/** A one-time sign-in link for a member of the business; its token is returned once. */
export async function createSignInLink(prisma: PrismaClient, input: { businessId: string; memberId: string; livemode: boolean; now?: Date }) {
  const token = randomToken();
  const expiresAt = new Date((input.now ?? new Date()).getTime() + SIGN_IN_LINK_TTL_MS);
  const id = rowId('osl');
  await prisma.opsSignInLink.create({ data: { id, businessId: input.businessId, memberId: input.memberId, livemode: input.livemode, tokenHash: hash(token), expiresAt } });
  return { id, token, expiresAt };
}

/**
 * Use a sign-in link: it is marked used (an atomic update, so two uses at once cannot both
 * win) and a session begins. Unknown, used or expired: sign_in_link_invalid.
 */
export async function redeemSignInLink(prisma: PrismaClient, linkToken: unknown, now: Date) {
  if (typeof linkToken !== 'string' || !TOKEN.test(linkToken)) throw OpsErrors.signInLinkInvalid();
  const tokenHash = hash(linkToken);
  const { count } = await prisma.opsSignInLink.updateMany({ where: { tokenHash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  if (count !== 1) throw OpsErrors.signInLinkInvalid();
  const link = await prisma.opsSignInLink.findUniqueOrThrow({ where: { tokenHash } });
  const token = randomToken();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  const id = rowId('oss');
  await prisma.opsSession.create({ data: { id, businessId: link.businessId, memberId: link.memberId, livemode: link.livemode, tokenHash: hash(token), expiresAt } });
  return { token, expiresAt };
}

/** The member a live session acts as, with what the page shows of it; session_required otherwise. */
export async function openSession(prisma: PrismaClient, token: string | null, now = new Date()) {
  if (!token) throw OpsErrors.sessionRequired();
  const row = await prisma.opsSession.findUnique({
    where: { tokenHash: hash(token) },
    include: { member: { include: { business: { select: { name: true, sandboxClockOffsetSeconds: true } } } } },
  });
  if (!row || row.endedAt || row.expiresAt <= now) throw OpsErrors.sessionRequired();
  const principal: Principal = {
    businessId: row.businessId,
    livemode: row.livemode,
    // Rate limits and the audit log name the session where they would name a key.
    keyId: row.id,
    keyKind: 'secret',
    memberId: row.memberId,
    permissions: permissionsOf(row.member.role, row.member.permissions, []),
    clockOffsetMs: row.livemode ? 0 : row.member.business.sandboxClockOffsetSeconds * 1000,
  };
  return { principal, session: row, member: row.member, businessName: row.member.business.name };
}

/** The caller a session cookie stands for. */
export async function sessionPrincipal(prisma: PrismaClient, token: string | null): Promise<Principal> {
  return (await openSession(prisma, token)).principal;
}

/** Sign out: the session stops working at once. */
export async function endSession(prisma: PrismaClient, token: string, now = new Date()): Promise<void> {
  await prisma.opsSession.updateMany({ where: { tokenHash: hash(token), endedAt: null }, data: { endedAt: now } });
}
