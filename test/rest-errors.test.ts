import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, period, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/**
 * Every first-release operation answers bad callers and bad input in the contract's
 * envelope and status (the contract, "Errors"), never with a 500.
 */
describe.each(ENGINES)('REST errors on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let vehicleId: string;
  let bookingId: string;
  let customerId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
    const booking = await createBooking(api, vehicleId);
    bookingId = booking.id;
    customerId = booking.customer_id;
  });
  afterAll(() => t?.close());

  const expectError = (res: { status: number; body: any; headers: Headers }, status: number, type: string, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ type, code });
    expect(typeof res.body.error.message).toBe('string');
    expect(res.body.error.request_id).toMatch(/^req_/);
    expect(res.headers.get('request-id')).toBe(res.body.error.request_id);
  };

  const reads = () => [
    `/v1/vehicles/${vehicleId}`,
    `/v1/bookings/${bookingId}`,
    `/v1/customers/${customerId}`,
    `/v1/bookings/${bookingId}/payment`,
    `/v1/bookings/${bookingId}/deposit`,
    `/v1/bookings/${bookingId}/charges`,
  ];

  it('answers unknown ids with 404 resource_missing', async () => {
    for (const path of ['/v1/vehicles/veh_unknown', '/v1/bookings/bk_unknown', '/v1/customers/cus_unknown', '/v1/bookings/bk_unknown/payment', '/v1/bookings/bk_unknown/deposit', '/v1/bookings/bk_unknown/charges']) {
      expectError(await api.get(path), 404, 'invalid_request', 'resource_missing');
    }
    expectError(await api.post('/v1/bookings/bk_unknown/cancel'), 404, 'invalid_request', 'resource_missing');
  });

  it("answers another business's ids exactly like unknown ids", async () => {
    const foreign = restClient(t.baseUrl, t.other.test_secret_key);
    for (const path of reads()) expectError(await foreign.get(path), 404, 'invalid_request', 'resource_missing');
    expectError(await foreign.post(`/v1/bookings/${bookingId}/cancel`), 404, 'invalid_request', 'resource_missing');
    expectError(await foreign.post('/v1/bookings', { vehicle_id: vehicleId, ...period(50, 1), customer: { name: 'X' } }), 404, 'invalid_request', 'resource_missing');
    expectError(await foreign.post('/v1/messages', { channel: 'sms', body: 'hi', customer_id: customerId }), 404, 'invalid_request', 'resource_missing');
    expect((await api.get(`/v1/bookings/${bookingId}`)).body.state).toBe('pending_payment');
  });

  it("answers the other environment's ids exactly like unknown ids", async () => {
    const live = restClient(t.baseUrl, t.business.live_secret_key);
    for (const path of reads()) expectError(await live.get(path), 404, 'invalid_request', 'resource_missing');
    expect((await live.get('/v1/bookings')).body.data).toEqual([]);
    expect((await live.get('/v1/vehicles')).body.data).toEqual([]);
  });

  it('refuses publishable keys outside the public allow list with 403 secret_key_required', async () => {
    const pk = restClient(t.baseUrl, t.business.test_public_key);
    for (const path of [...reads().slice(1), '/v1/bookings']) expectError(await pk.get(path), 403, 'authorization_error', 'secret_key_required');
    // A browser booking (the embedded components) only for a vehicle the published website shows: this one is not.
    expectError(await pk.post('/v1/bookings', { vehicle_id: vehicleId, ...period(60, 1), customer: { name: 'X' } }), 404, 'invalid_request', 'resource_missing');
    expectError(await pk.post('/v1/customers', { name: 'X' }), 403, 'authorization_error', 'secret_key_required');
    expectError(await pk.post(`/v1/bookings/${bookingId}/cancel`), 403, 'authorization_error', 'secret_key_required');
    expectError(await pk.post('/v1/messages', { channel: 'sms', body: 'hi', customer_id: customerId }), 403, 'authorization_error', 'secret_key_required');
    expect((await pk.get(`/v1/vehicles/${vehicleId}`)).status).toBe(200);
  });

  it('answers missing, malformed, unknown and revoked keys with 401', async () => {
    expectError(await restClient(t.baseUrl, null).get('/v1/vehicles'), 401, 'authentication_error', 'missing_api_key');
    expectError(await api.get('/v1/vehicles', { authorization: 'Basic abc' }), 401, 'authentication_error', 'missing_api_key');
    expectError(await restClient(t.baseUrl, 'svc_test_sk_' + 'x'.repeat(40)).get('/v1/vehicles'), 401, 'authentication_error', 'invalid_api_key');
  });

  it('answers a permission the key lacks with 403 permission_denied naming it', async () => {
    const { createApiKey } = await import('../src/platform/api-keys.ts');
    const restricted = await createApiKey(t.db.prisma, { businessId: t.business.business_id, livemode: false, kind: 'secret', permissions: ['vehicles:read'] });
    const client = restClient(t.baseUrl, restricted.key);
    expect((await client.get('/v1/vehicles')).status).toBe(200);
    const denied = await client.get(`/v1/bookings/${bookingId}`);
    expectError(denied, 403, 'authorization_error', 'permission_denied');
    expect(denied.body.error.message).toContain('bookings:read');
  });

  it('names the offending field of a bad booking request with 422 and its param', async () => {
    const valid = { vehicle_id: vehicleId, ...period(70, 2), customer: { name: 'Val', email: 'val@example.com' } };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...valid, vehicle_id: undefined }, 'vehicle_id', 'parameter_missing'],
      [{ ...valid, vehicle_id: true }, 'vehicle_id', 'parameter_invalid'],
      [{ ...valid, start_at: '2027-01-01T10:00:00' }, 'start_at', 'parameter_invalid'],
      [{ ...valid, start_at: 'tomorrow' }, 'start_at', 'parameter_invalid'],
      [{ ...valid, end_at: valid.start_at }, 'end_at', 'parameter_invalid'],
      [{ ...valid, start_at: '2020-01-01T10:00:00Z', end_at: '2020-01-02T10:00:00Z' }, 'start_at', 'parameter_invalid'],
      [{ ...valid, unlimited_miles: 'yes' }, 'unlimited_miles', 'parameter_invalid'],
      [{ ...valid, customer: { email: 'x@example.com' } }, 'customer.name', 'parameter_missing'],
      [{ ...valid, customer: { name: 'Y', email: 'not-an-email' } }, 'customer.email', 'parameter_invalid'],
      [{ ...valid, customer: undefined }, 'customer_id', 'parameter_invalid'],
      [{ ...valid, metadata: { k: 5 } }, 'metadata.k', 'parameter_invalid'],
      [{ ...valid, metadata: { ['x'.repeat(41)]: 'v' } }, `metadata.${'x'.repeat(41)}`, 'parameter_invalid'],
      [{ ...valid, metadata: { crmId: 7 } }, 'metadata.crmId', 'parameter_invalid'],
      [{ ...valid, surprise: true }, 'surprise', 'parameter_unknown'],
      [{ ...valid, vehicleId: vehicleId }, 'vehicleId', 'parameter_unknown'],
    ];
    for (const [body, param, code] of cases) {
      const res = await api.post('/v1/bookings', body);
      expect({ status: res.status, param: res.body.error?.param, code: res.body.error?.code, for: body }).toMatchObject({ status: 422, param, code });
      expect(res.body.error.type).toBe('validation_error');
    }
  });

  it('names bad quote and list parameters', async () => {
    const quote = await api.post('/v1/quotes', { vehicle_id: vehicleId, start_at: period(5, 1).start_at, end_at: 'later' });
    expect(quote.body.error).toMatchObject({ type: 'validation_error', param: 'end_at' });
    const unknownVehicle = await api.post('/v1/quotes', { vehicle_id: 'veh_nope', ...period(5, 1) });
    expectError(unknownVehicle, 404, 'invalid_request', 'resource_missing');
    for (const limit of ['0', '101', 'ten', '-1', '1.5']) {
      const res = await api.get(`/v1/bookings?limit=${limit}`);
      expect(res.status).toBe(422);
      expect(res.body.error.param).toBe('limit');
    }
    expect((await api.get('/v1/bookings?color=red')).body.error).toMatchObject({ code: 'parameter_unknown', param: 'color' });
  });

  it('answers malformed JSON with 400 invalid_json and a non-object body likewise', async () => {
    expectError(await api.post('/v1/bookings', '{"vehicle_id": '), 400, 'invalid_request', 'invalid_json');
    expectError(await api.post('/v1/bookings', '[1,2]'), 400, 'invalid_request', 'invalid_json');
  });

  it('answers a body over 1 MiB with 413 payload_too_large', async () => {
    const res = await api.post('/v1/messages', { channel: 'sms', body: 'x'.repeat(1024 * 1024 + 10), customer_id: customerId });
    expectError(res, 413, 'invalid_request', 'payload_too_large');
  });

  it('answers unknown paths with 404 route_not_found and wrong methods with 405', async () => {
    expectError(await api.get('/v1/nothing-here'), 404, 'invalid_request', 'route_not_found');
    const wrong = await api.call('DELETE', `/v1/bookings/${bookingId}`);
    expectError(wrong, 405, 'invalid_request', 'method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('GET, POST');
  });
});
