import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, nextPeriod } from './support/fixtures.ts';

/** Idempotency, rate limits, audit and the OpenAPI document (the contract), on both engines. */
describe.each(ENGINES)('contract machinery on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let vehicleId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(() => t?.close());

  describe('Idempotency-Key', () => {
    it('replays the first answer with Idempotent-Replayed and creates nothing twice', async () => {
      const body = { vehicle_id: vehicleId, ...nextPeriod(), customer: { name: 'Idem' } };
      const first = await api.post('/v1/bookings', body, { 'Idempotency-Key': 'replay-1' });
      expect(first.status).toBe(201);
      const replay = await api.post('/v1/bookings', body, { 'Idempotency-Key': 'replay-1' });
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(await t.db.prisma.booking.count({ where: { customer: { name: 'Idem' } } })).toBe(1);
      expect(await t.db.prisma.event.count({ where: { type: 'booking.created', bookingId: first.body.id } })).toBe(1);
    });

    it('answers 409 idempotency_key_reused to the same key with another body or path', async () => {
      const body = { vehicle_id: vehicleId, ...nextPeriod(), customer: { name: 'Reuse' } };
      await api.post('/v1/bookings', body, { 'Idempotency-Key': 'reuse-1' });
      const changed = await api.post('/v1/bookings', { ...body, metadata: { x: 'y' } }, { 'Idempotency-Key': 'reuse-1' });
      expect(changed.status).toBe(409);
      expect(changed.body.error).toMatchObject({ type: 'conflict', code: 'idempotency_key_reused' });
      const otherPath = await api.post('/v1/quotes', body, { 'Idempotency-Key': 'reuse-1' });
      expect(otherPath.body.error.code).toBe('idempotency_key_reused');
    });

    it('replays an error answer too, with its original request id', async () => {
      const body = { vehicle_id: 'veh_missing', ...nextPeriod(), customer: { name: 'E' } };
      const first = await api.post('/v1/bookings', body, { 'Idempotency-Key': 'err-1' });
      expect(first.status).toBe(404);
      const replay = await api.post('/v1/bookings', body, { 'Idempotency-Key': 'err-1' });
      expect(replay.status).toBe(404);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('request-id')).toBe(first.body.error.request_id);
    });

    it('keeps keys apart per business', async () => {
      const other = restClient(t.baseUrl, t.other.test_secret_key);
      const otherVehicle = await createVehicle(other);
      const mine = await api.post('/v1/bookings', { vehicle_id: vehicleId, ...nextPeriod(), customer: { name: 'Mine' } }, { 'Idempotency-Key': 'shared-key' });
      const theirs = await other.post('/v1/bookings', { vehicle_id: otherVehicle.id, ...nextPeriod(), customer: { name: 'Theirs' } }, { 'Idempotency-Key': 'shared-key' });
      expect(mine.status).toBe(201);
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).not.toBe(mine.body.id);
    });

    it('rejects a key that is not printable ASCII or too long', async () => {
      const res = await api.post('/v1/quotes', {}, { 'Idempotency-Key': 'k'.repeat(256) });
      expect(res.status).toBe(422);
      expect(res.body.error.param).toBe('Idempotency-Key');
    });

    it('50 concurrent requests with one key create exactly one booking', async () => {
      const body = { vehicle_id: vehicleId, ...nextPeriod(), customer: { name: 'Concurrent idem' } };
      const answers = await Promise.all(Array.from({ length: 50 }, () => api.post('/v1/bookings', body, { 'Idempotency-Key': 'burst-1' })));
      const created = answers.filter((a) => a.status === 201);
      const inUse = answers.filter((a) => a.status === 409 && a.body.error.code === 'idempotency_key_in_use');
      expect(created.length + inUse.length).toBe(50);
      expect(created.length).toBeGreaterThanOrEqual(1);
      const ids = new Set(created.map((a) => a.body.id));
      expect(ids.size).toBe(1);
      expect(await t.db.prisma.booking.count({ where: { customer: { name: 'Concurrent idem' } } })).toBe(1);
      const later = await api.post('/v1/bookings', body, { 'Idempotency-Key': 'burst-1' });
      expect(later.headers.get('idempotent-replayed')).toBe('true');
      expect(later.body).toEqual(created[0].body);
    });
  });

  describe('audit', () => {
    it('records every write with its key, path, status and booking', async () => {
      const booking = await createBooking(api, vehicleId);
      await api.post(`/v1/bookings/${booking.id}/cancel`);
      await api.post(`/v1/bookings/${booking.id}/cancel`); // refused, still audited
      const rows = await t.db.prisma.auditLog.findMany({ where: { bookingId: booking.id }, orderBy: { id: 'asc' } });
      expect(rows.map((r) => [r.method, r.path, r.status, r.operation])).toEqual([
        ['POST', '/v1/bookings', 201, 'createBooking'],
        ['POST', `/v1/bookings/${booking.id}/cancel`, 200, 'cancelBooking'],
        ['POST', `/v1/bookings/${booking.id}/cancel`, 409, 'cancelBooking'],
      ]);
      expect(rows.every((r) => r.businessId === t.business.business_id && r.livemode === false && r.apiKeyId?.startsWith('key_'))).toBe(true);
    });
  });

  describe('OpenAPI', () => {
    it('documents every REST operation with its release stage', async () => {
      const res = await restClient(t.baseUrl, null).get('/v1/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
      const firstRelease = [
        'get /v1/vehicles', 'get /v1/vehicles/{vehicle_id}', 'get /v1/availability', 'post /v1/quotes', 'post /v1/bookings',
        'get /v1/bookings/{booking_id}', 'post /v1/bookings/{booking_id}/cancel', 'get /v1/customers/{customer_id}',
        'get /v1/bookings/{booking_id}/payment', 'get /v1/bookings/{booking_id}/deposit', 'get /v1/bookings/{booking_id}/charges', 'post /v1/messages',
      ];
      for (const op of firstRelease) {
        const [method, path] = op.split(' ');
        expect(res.body.paths[path]?.[method], op).toMatchObject({ 'x-release-stage': 'first_release', 'x-released': false });
      }
      expect(res.body.paths['/v1/vehicles'].post['x-release-stage']).toBe('later_scope');
      expect(res.body.components.schemas.Booking.properties).toHaveProperty('total_cents');
    });
  });
});

describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { rateLimitTest: 5, rateLimitLive: 8 });
  });
  afterAll(() => t?.close());

  it('answers 429 rate_limited with Retry-After past the per-key limit, with RateLimit headers on every answer', async () => {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    const answers = await Promise.all(Array.from({ length: 12 }, () => api.get('/v1/vehicles')));
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(ok.length).toBeLessThanOrEqual(5 * 2); // the burst may straddle a window edge
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (const a of answers) {
      expect(a.headers.get('ratelimit-limit')).toBe('5');
      expect(a.headers.get('ratelimit-remaining')).not.toBeNull();
      expect(a.headers.get('ratelimit-reset')).not.toBeNull();
    }
    const live = await restClient(t.baseUrl, t.business.live_secret_key).get('/v1/vehicles');
    expect(live.headers.get('ratelimit-limit')).toBe('8');
  });
});

describe('hosts that serve one environment', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The test server answers on 127.0.0.1 (sandbox) and localhost (production).
    t = await startTestApp('pglite', { sandboxHost: '127.0.0.1', productionHost: 'localhost' });
  });
  afterAll(() => t?.close());

  it('refuses a key of the other environment with 401 api_key_environment_mismatch', async () => {
    const sandboxLive = await restClient(t.baseUrl, t.business.live_secret_key).get('/v1/vehicles');
    expect(sandboxLive.status).toBe(401);
    expect(sandboxLive.body.error).toMatchObject({ type: 'authentication_error', code: 'api_key_environment_mismatch' });
    expect((await restClient(t.baseUrl, t.business.test_secret_key).get('/v1/vehicles')).status).toBe(200);

    const production = t.baseUrl.replace('127.0.0.1', 'localhost');
    expect((await restClient(production, t.business.live_secret_key).get('/v1/vehicles')).status).toBe(200);
    const productionTest = await restClient(production, t.business.test_public_key).get('/v1/vehicles');
    expect(productionTest.body.error.code).toBe('api_key_environment_mismatch');
  });
});
