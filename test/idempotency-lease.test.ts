import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantDbFactory } from '../src/db/tenant-db.ts';
import { IDEMPOTENCY_TTL_MS, sweepIdempotencyRecords } from '../src/http/idempotency.ts';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';

/**
 * An Idempotency-Key claimed by a process that died is not blocked for 24 hours: once its
 * lease runs out, a retry of the same request takes it over. Keys past their 24 hours are
 * swept away.
 */
describe.each(ENGINES)('idempotency claims on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let owner: { businessId: string; livemode: boolean };

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    owner = { businessId: t.business.business_id, livemode: false };
  });
  afterAll(() => t?.close());

  const body = JSON.stringify({ name: 'Claimed Car', daily_rate_cents: 4900 });
  /** A claim as a process leaves it when it dies mid-request. */
  const leftBehind = (key: string, leaseExpiresAt: Date, requestBody = body) =>
    tenantDbFactory(t.db.prisma)(owner).idempotencyRecord.create({
      data: {
        ...owner, key, method: 'POST', path: '/v1/vehicles', bodyHash: createHash('sha256').update(requestBody).digest('hex'), requestId: 'req_dead',
        leaseExpiresAt, expiresAt: new Date(Date.now() + IDEMPOTENCY_TTL_MS),
      },
    });

  it('answers 409 idempotency_key_in_use while the claim is its owner\'s', async () => {
    await leftBehind('k-live', new Date(Date.now() + 30_000));
    const res = await api.post('/v1/vehicles', body, { 'Idempotency-Key': 'k-live' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_in_use');
  });

  it('lets a retry take over a claim whose owner stopped renewing it, and then replays that answer', async () => {
    await leftBehind('k-dead', new Date(Date.now() - 1_000));
    const first = await api.post('/v1/vehicles', body, { 'Idempotency-Key': 'k-dead' });
    expect(first.status).toBe(201);
    expect(first.body.name).toBe('Claimed Car');
    const again = await api.post('/v1/vehicles', body, { 'Idempotency-Key': 'k-dead' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await api.get('/v1/vehicles?limit=100')).body.data.filter((v: { name: string }) => v.name === 'Claimed Car')).toHaveLength(1);
  });

  it('still refuses another request on an abandoned key with idempotency_key_reused', async () => {
    await leftBehind('k-other', new Date(Date.now() - 1_000), '{"name":"Another"}');
    const res = await api.post('/v1/vehicles', body, { 'Idempotency-Key': 'k-other' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_reused');
  });

  it('sweeps keys past their 24 hours, of every business, and keeps the others', async () => {
    const db = tenantDbFactory(t.db.prisma);
    const expired = new Date(Date.now() - 1_000);
    for (const [scope, key] of [[owner, 'old-a'], [{ businessId: t.other.business_id, livemode: true }, 'old-b']] as const) {
      await db(scope).idempotencyRecord.create({ data: { ...scope, key, method: 'POST', path: '/v1/x', bodyHash: 'h', requestId: 'req_x', state: 'completed', responseStatus: 200, responseBody: '{}', expiresAt: expired } });
    }
    await api.post('/v1/vehicles', JSON.stringify({ name: 'Kept', daily_rate_cents: 1 }), { 'Idempotency-Key': 'k-kept' });
    expect(await sweepIdempotencyRecords(t.db.prisma)).toBeGreaterThanOrEqual(2);
    const keys = (await t.db.prisma.idempotencyRecord.findMany({ select: { key: true } })).map((r) => r.key);
    expect(keys).not.toContain('old-a');
    expect(keys).not.toContain('old-b');
    expect(keys).toContain('k-kept');
  });
});
