import type { TenantDbFactory } from '../../../db/tenant-db.ts';
import { STATUS_BY_TYPE } from '../../../domain/shared/errors.ts';
import { idempotentRequest } from '../../../domain/shared/idempotent-calls.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { claimIdempotencyKey, completeIdempotencyKey, IDEMPOTENCY_LEASE_MS, idempotencyRecordKey, releaseIdempotencyKey, renewIdempotencyLease } from '../../idempotency.ts';
import type { EdgeContext, EdgeStep } from '../runner.ts';
import { clientOf } from './client.ts';

/**
 * `Idempotency-Key` on every POST, REST and GraphQL alike (the contract's "Idempotency"): the
 * first answer is stored and replayed verbatim with `Idempotent-Replayed: true`; any answer
 * but a 5xx is remembered (errors included); a request that fails on our side, or a stream,
 * releases its key so it can be retried (keeping the note of a change it had committed, for
 * the retry to answer from: src/http/idempotency.ts). While the request runs its claim is renewed, so a
 * claim outlives an owner that died by one lease at most; the retry that then takes it over
 * answers from what the dead owner committed, if anything (`ctx.idempotent`).
 *
 * A publishable key's keys are kept per client address (`browserScope`): its create answer
 * carries the booking's client_secret, so a key repeated with the same body from another
 * address must not replay it. That address gets its own outcome, as if the key were new.
 */
export function idempotencyStep(
  tenantDb: TenantDbFactory,
  leaseMs = IDEMPOTENCY_LEASE_MS,
  browserScope: (tenant: { businessId: string; livemode: boolean }, address: string | null) => string,
): EdgeStep {
  async function claim(ctx: EdgeContext, key: string): Promise<void> {
    const principal = ctx.principal!;
    const db = tenantDb(principal);
    const { request } = ctx;
    const tenant = { businessId: principal.businessId, livemode: principal.livemode };
    const scope = principal.keyKind === 'publishable' ? browserScope(tenant, clientOf(ctx).address) : null;
    const claimed = await claimIdempotencyKey(db, tenant, {
      key, scope, method: request.method, path: request.pathname + request.search, body: ctx.body ?? '', requestId: ctx.requestId,
    }, new Date(), leaseMs);
    if (claimed.kind === 'replay') {
      ctx.headers['Request-Id'] = claimed.response.requestId;
      ctx.answer = { status: claimed.response.status, headers: { 'content-type': 'application/json; charset=utf-8', 'Idempotent-Replayed': 'true' }, body: claimed.response.body };
      return;
    }
    // The operations see the key the client sent; the record is kept under its scoped name.
    const record = idempotencyRecordKey(key, scope);
    ctx.idempotencyKey = key;
    ctx.idempotent = idempotentRequest(record, claimed.committed, () => EdgeErrors.idempotencyKeyInUse());
    const renewal = setInterval(() => void renewIdempotencyLease(db, record, ctx.requestId, leaseMs).catch(() => {}), leaseMs / 3);
    renewal.unref();
    ctx.finally.push(() => clearInterval(renewal));
  }

  return {
    name: 'idempotency',
    run(ctx) {
      if (ctx.transport !== 'http' || ctx.request.method !== 'POST' || !ctx.principal) return;
      const key = ctx.request.header('idempotency-key');
      if (key !== null) return claim(ctx, key);
    },
    /** Store the answer for replays, or release the key (a 5xx, a stream). */
    answered(ctx, response) {
      const key = ctx.idempotent?.key;
      if (key === undefined || !ctx.principal) return;
      const db = tenantDb(ctx.principal);
      // Answered from what a dead owner of the key committed: a replay of that first run.
      if (ctx.idempotent?.replayed) ctx.headers['Idempotent-Replayed'] = 'true';
      if (response.streaming) return releaseIdempotencyKey(db, key, ctx.requestId);
      // An integration error (502) is an operation's own answer that it changed nothing; any
      // other 5xx may have come after a commit, whose note the retry must find.
      const failed = (status: number) =>
        releaseIdempotencyKey(db, key, ctx.requestId, Object.keys(ctx.idempotent!.effects).length > 0 && status !== STATUS_BY_TYPE.integration_error);
      if (response.status >= 500) return failed(response.status);
      return response.text().then((body) => {
        const failure = ctx.kind === 'graphql' ? graphqlServerFailure(body) : null;
        return failure ? failed(failure) : completeIdempotencyKey(db, key, ctx.requestId, { status: response.status, body });
      });
    },
  };
}

/**
 * The 5xx status among a GraphQL answer's errors (GraphQL answers an operation's errors with
 * 200, each with its status in `extensions`), one other than an integration error's first;
 * null when there is none.
 */
export function graphqlServerFailure(body: string): number | null {
  if (!body.includes('"errors"')) return null;
  let statuses: unknown[];
  try {
    const errors = (JSON.parse(body) as { errors?: { extensions?: { status?: unknown } }[] }).errors;
    statuses = Array.isArray(errors) ? errors.map((e) => e?.extensions?.status) : [];
  } catch {
    return null;
  }
  const failures = statuses.filter((s): s is number => typeof s === 'number' && s >= 500);
  return failures.find((s) => s !== STATUS_BY_TYPE.integration_error) ?? failures[0] ?? null;
}
