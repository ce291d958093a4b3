import { createHash } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { conflict, validationError } from '../domain/shared/errors.ts';
import { isUniqueViolation } from '../db/database.ts';

/** How long a key is remembered (CONTRACT.md "Idempotency"). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const KEY_PATTERN = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

export interface StoredResponse {
  status: number;
  body: string;
  requestId: string;
}

export type Claim = { kind: 'proceed' } | { kind: 'replay'; response: StoredResponse };

interface Scope {
  businessId: string;
  livemode: boolean;
}

export function validateIdempotencyKey(key: string): void {
  if (!KEY_PATTERN.test(key)) throw validationError('Idempotency-Key', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.', 'idempotency_key_invalid');
}

const fingerprint = (body: string) => createHash('sha256').update(body).digest('hex');

/**
 * Claim a key before running a POST. The first request proceeds; a finished one with the
 * same method, path and body is replayed; anything else is a 409 (reused, or still running).
 */
export async function claimIdempotencyKey(
  prisma: PrismaClient,
  scope: Scope,
  request: { key: string; method: string; path: string; body: string; requestId: string },
  now = new Date(),
): Promise<Claim> {
  validateIdempotencyKey(request.key);
  const bodyHash = fingerprint(request.body);
  const id = { businessId: scope.businessId, livemode: scope.livemode, key: request.key };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await prisma.idempotencyRecord.create({
        data: { ...id, method: request.method, path: request.path, bodyHash, requestId: request.requestId, expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) },
      });
      return { kind: 'proceed' };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    const existing = await prisma.idempotencyRecord.findUnique({ where: { businessId_livemode_key: id } });
    if (!existing) continue; // released meanwhile: claim again
    if (existing.expiresAt <= now) {
      await prisma.idempotencyRecord.deleteMany({ where: { ...id, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.method !== request.method || existing.path !== request.path || existing.bodyHash !== bodyHash) {
      throw conflict('idempotency_key_reused', `Keys for idempotent requests can only be used with the same method, path and body as the first request (${existing.method} ${existing.path}).`);
    }
    if (existing.state === 'in_flight') {
      throw conflict('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed. Retry after it completes.');
    }
    return { kind: 'replay', response: { status: existing.responseStatus ?? 200, body: existing.responseBody ?? '', requestId: existing.requestId } };
  }
  throw conflict('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed. Retry after it completes.');
}

/** Store the first answer for replays. */
export async function completeIdempotencyKey(prisma: PrismaClient, scope: Scope, key: string, response: { status: number; body: string }): Promise<void> {
  await prisma.idempotencyRecord.update({
    where: { businessId_livemode_key: { ...scope, key } },
    data: { state: 'completed', responseStatus: response.status, responseBody: response.body },
  });
}

/** Forget a claim whose request failed on our side, so the client may retry it. */
export async function releaseIdempotencyKey(prisma: PrismaClient, scope: Scope, key: string): Promise<void> {
  await prisma.idempotencyRecord.deleteMany({ where: { ...scope, key, state: 'in_flight' } });
}
