import { getNamedType, type GraphQLNamedType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantDbFactory } from '../src/db/tenant-db.ts';
import { Prisma } from '../src/generated/prisma/client.ts';
import type { Operation } from '../src/domain/shared/operation.ts';
import type { EdgeStep } from '../src/http/edge/runner.ts';
import { claimIdempotencyKey, releaseIdempotencyKey } from '../src/http/idempotency.ts';
import { schema } from '../src/schema/index.ts';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createVehicle, nextPeriod } from './support/fixtures.ts';

/*
 * What a call under an Idempotency-Key commits is marked in the key's record in the same
 * transaction (src/domain/shared/idempotent-calls.ts). The crash itself is in
 * test/idempotency-crash.test.ts; here: the fence on the claim, the release after a 5xx, and
 * that every mutation can answer a retry from its effect.
 */

/** Mutations that run again on a retry after a crash, and why that is harmless. */
const RUN_AGAIN: Record<string, string> = {
  testReset: 'a repeated reset leaves the sandbox reset; its counts of what it deleted are not kept anywhere',
};

describe('every mutation answers a retry from what its first run committed', () => {
  it('declares how (replay), or answers one row of a model (the row the first run created, or wrote and its arguments name)', () => {
    const models = new Set<string>(Object.values(Prisma.ModelName));
    const fields = Object.values(schema.getMutationType()!.getFields());
    const unanswered = fields
      .filter((f) => {
        const operation = f.extensions?.operation as Operation | undefined;
        const type: GraphQLNamedType = getNamedType(f.type);
        return !operation?.replay && !models.has(type.name) && !(f.name in RUN_AGAIN);
      })
      .map((f) => f.name);
    expect(unanswered).toEqual([]);
    expect(fields.length).toBeGreaterThan(50);
  });
});

describe.each(ENGINES)('idempotent calls on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let owner: { businessId: string; livemode: boolean };
  /** Keys whose claim is "taken over" by another request just before their operation runs. */
  const takenOver = new Set<string>();

  beforeAll(async () => {
    let tenantDb: ReturnType<typeof tenantDbFactory>;
    // A step after the claim: another request takes the claim over (it presumed this one dead) before the operation runs.
    const takeOver: EdgeStep = {
      name: 'test-take-over',
      async run(ctx) {
        const key = ctx.idempotencyKey;
        if (key === null || !takenOver.has(key)) return;
        await tenantDb(owner).idempotencyRecord.updateMany({ where: { key }, data: { requestId: 'req_the_retry' } });
      },
    };
    t = await startTestApp(engine, {}, { adjustEdge: (steps) => steps.flatMap((s) => (s.name === 'idempotency' ? [s, takeOver] : [s])) });
    tenantDb = tenantDbFactory(t.db.prisma);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    owner = { businessId: t.business.business_id, livemode: false };
  });
  afterAll(() => t?.close());

  it('a request whose claim was taken over meanwhile commits nothing: 409 idempotency_key_in_use, and no booking', async () => {
    const vehicle = await createVehicle(api);
    takenOver.add('k-fenced');
    const res = await api.post('/v1/bookings', { vehicle_id: vehicle.id, ...nextPeriod(), customer: { name: 'Ada', email: 'ada@example.com', phone: '+1 512 555 0100' } }, { 'Idempotency-Key': 'k-fenced' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_in_use');
    expect((await api.get(`/v1/bookings?vehicle_id=${vehicle.id}`)).body.data).toEqual([]);
    // The retry that holds the claim now made nothing to answer from yet.
    const record = await t.db.prisma.idempotencyRecord.findFirstOrThrow({ where: { key: 'k-fenced' } });
    expect(record).toMatchObject({ requestId: 'req_the_retry', state: 'in_flight', effects: null });
  });

  it('a 5xx releases its key even when part of it committed: such an operation is left to run again', async () => {
    const db = tenantDbFactory(t.db.prisma)(owner);
    const request = { method: 'POST', path: '/v1/x', body: '{}', requestId: 'req_first' };
    await claimIdempotencyKey(db, owner, { ...request, key: 'k-committed' });
    const effects = { 'collectCharge#1': { created: {}, changed: { Charge: ['chg_x'] } } };
    await db.idempotencyRecord.updateMany({ where: { key: 'k-committed' }, data: { effects } });
    await releaseIdempotencyKey(db, 'k-committed', 'req_first');
    expect(await db.idempotencyRecord.findFirst({ where: { key: 'k-committed' } })).toBeNull();
    expect(await claimIdempotencyKey(db, owner, { ...request, key: 'k-committed', requestId: 'req_retry' })).toEqual({ kind: 'proceed', committed: null });
  });
});
