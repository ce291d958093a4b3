import { createHash } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { TenantDb, TenantScope } from '../db/tenant-db.ts';
import { isUniqueViolation } from '../db/database-errors.ts';
import type { Effects } from '../domain/shared/idempotent-calls.ts';
import { EdgeErrors } from './edge.errors.ts';

/** How long a key is remembered (the contract's "Idempotency"). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** How long an in-flight claim is its owner's without renewal (by default; IDEMPOTENCY_LEASE_MS); the owner renews it while it runs. */
export const IDEMPOTENCY_LEASE_MS = 60_000;
const KEY_PATTERN = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

export interface StoredResponse {
  status: number;
  body: string;
  requestId: string;
}

/** Proceed (with what earlier owners of the key committed before they died, if any), or replay the stored answer. */
export type Claim = { kind: 'proceed'; committed: Effects | null } | { kind: 'replay'; response: StoredResponse };

export function validateIdempotencyKey(key: string): void {
  if (!KEY_PATTERN.test(key)) throw EdgeErrors.idempotencyKeyInvalid();
}

const fingerprint = (body: string) => createHash('sha256').update(body).digest('hex');

/**
 * The record a key is kept under: the key itself, or, for a caller whose keys are scoped
 * (a publishable key's: per client address, src/http/edge/steps/idempotency.ts), the scope
 * and the key. Two scopes never see each other's record.
 */
export const idempotencyRecordKey = (key: string, scope: string | null) => (scope ? `${scope}:${key}` : key);

/**
 * Claim a key before running a POST (through the caller's tenant scope). The first request
 * proceeds; a finished one with the same method, path and body is replayed; a different
 * request is 409 `idempotency_key_reused`; the same one still running is 409
 * `idempotency_key_in_use`, unless its owner stopped renewing its lease (the process died),
 * in which case this request takes the claim over, with what the dead owner committed: its
 * operations answer from that instead of running again (src/domain/shared/idempotent-calls.ts).
 * With a `scope`, the key is looked up and kept within it (idempotencyRecordKey).
 */
export async function claimIdempotencyKey(
  db: TenantDb,
  owner: TenantScope,
  request: { key: string; scope?: string | null; method: string; path: string; body: string; requestId: string },
  now = new Date(),
  leaseMs = IDEMPOTENCY_LEASE_MS,
): Promise<Claim> {
  validateIdempotencyKey(request.key);
  const key = idempotencyRecordKey(request.key, request.scope ?? null);
  const bodyHash = fingerprint(request.body);
  const lease = () => new Date(now.getTime() + leaseMs);
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await db.idempotencyRecord.findFirst({ where: { key } });
    if (!existing) {
      try {
        await db.idempotencyRecord.create({
          data: { ...owner, key, method: request.method, path: request.path, bodyHash, requestId: request.requestId, leaseExpiresAt: lease(), expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) },
        });
        return { kind: 'proceed', committed: null };
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        continue; // claimed meanwhile: read it again
      }
    }
    if (existing.expiresAt <= now) {
      await db.idempotencyRecord.deleteMany({ where: { key, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.method !== request.method || existing.path !== request.path || existing.bodyHash !== bodyHash) throw EdgeErrors.idempotencyKeyReused(existing.method, existing.path);
    if (existing.state === 'completed') {
      return { kind: 'replay', response: { status: existing.responseStatus ?? 200, body: existing.responseBody ?? '', requestId: existing.requestId } };
    }
    if (existing.leaseExpiresAt && existing.leaseExpiresAt > now) throw EdgeErrors.idempotencyKeyInUse();
    // Abandoned: take it over, unless another retry just did.
    const { count } = await db.idempotencyRecord.updateMany({
      where: { key, state: 'in_flight', leaseExpiresAt: existing.leaseExpiresAt },
      data: { requestId: request.requestId, leaseExpiresAt: lease() },
    });
    if (count === 1) return { kind: 'proceed', committed: existing.effects as Effects | null };
  }
  throw EdgeErrors.idempotencyKeyInUse();
}

/** The claim is still ours while the request runs: push its lease forward. */
export async function renewIdempotencyLease(db: TenantDb, key: string, requestId: string, leaseMs = IDEMPOTENCY_LEASE_MS): Promise<void> {
  await db.idempotencyRecord.updateMany({ where: { key, requestId, state: 'in_flight' }, data: { leaseExpiresAt: new Date(Date.now() + leaseMs) } });
}

/** Store the first answer for replays. */
export async function completeIdempotencyKey(db: TenantDb, key: string, requestId: string, response: { status: number; body: string }): Promise<void> {
  await db.idempotencyRecord.updateMany({ where: { key, requestId }, data: { state: 'completed', responseStatus: response.status, responseBody: response.body, leaseExpiresAt: null } });
}

/**
 * Give up the claim of a request that failed on our side (a 5xx), or of a stream, so the
 * client may retry with the key.
 *
 * Without `keepCommitted` the record goes, and the retry runs as a first request would: for a
 * request that committed nothing, or an operation that answered it had put back what it wrote
 * (a charge the processor did not answer is pending again, for the retry to collect).
 *
 * With it, the failure came after a change had committed under the key (the database lost
 * while the answer was read, say). The record keeps the note of that change and its lease
 * ends now: the retry takes the key over at once and answers what the first run would have
 * answered, as after a crash, instead of making the change a second time.
 */
export async function releaseIdempotencyKey(db: TenantDb, key: string, requestId: string, keepCommitted = false): Promise<void> {
  if (keepCommitted) await db.idempotencyRecord.updateMany({ where: { key, requestId, state: 'in_flight' }, data: { leaseExpiresAt: new Date() } });
  else await db.idempotencyRecord.deleteMany({ where: { key, requestId, state: 'in_flight' } });
}

/** Delete keys past their 24 hours, every business's (a maintenance job). Returns how many went. */
export async function sweepIdempotencyRecords(prisma: PrismaClient, now = new Date(), batch = 1_000): Promise<number> {
  let total = 0;
  for (;;) {
    // Oldest first along the "expiresAt" index (unordered, the planner may read the whole table
    // for a batch); SKIP LOCKED: sweeps of several processes take different keys.
    const deleted = await prisma.$executeRaw`DELETE FROM "IdempotencyRecord" WHERE ctid IN (SELECT ctid FROM "IdempotencyRecord" WHERE "expiresAt" <= ${now} ORDER BY "expiresAt" LIMIT ${batch} FOR UPDATE SKIP LOCKED)`;
    total += deleted;
    if (deleted < batch) return total;
  }
}
