import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, period, restClient, startTestApp, type ApiResponse, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/**
 * The classes of hostile input that once reached a 500 or leaked card data, each refused in
 * the contract's envelope (or, for card numbers, redacted everywhere the text goes).
 */
describe.each(ENGINES)('hostile input on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  let vehicleId: string;
  let bookingId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
    bookingId = (await createBooking(api, vehicleId)).id;
  });
  afterAll(() => t?.close());

  const expectError = (res: ApiResponse, status: number, code: string, param?: string) => {
    expect({ status: res.status, code: res.body?.error?.code, ...(param ? { param: res.body?.error?.param } : {}) }).toEqual({ status, code, ...(param ? { param } : {}) });
    expect(res.body.error.request_id).toBe(res.headers.get('request-id'));
  };

  it('answers a path id with invalid percent-encoding 404 resource_missing, after authentication, with no stack trace', async () => {
    for (const id of ['%', '%zz', '%E0%A4%A', '%00', 'bk_%00x', '%ED%A0%80']) {
      expectError(await api.get(`/v1/bookings/${id}`), 404, 'resource_missing', 'booking_id');
      expectError(await restClient(t.baseUrl, null).get(`/v1/bookings/${id}`), 401, 'missing_api_key');
    }
  });

  it('refuses a NUL or an unpaired surrogate anywhere in REST input with 422 naming the field', async () => {
    expectError(await api.get('/v1/bookings?customer_id=cus_%00'), 422, 'parameter_invalid', 'customer_id');
    expectError(await api.post('/v1/vehicles', { name: 'Car\u0000', daily_rate_cents: 100 }), 422, 'parameter_invalid', 'name');
    expectError(await api.post('/v1/vehicles', { name: 'Car', daily_rate_cents: 100, metadata: { 'k\u0000': 'v' } }), 422, 'parameter_invalid', 'metadata.k\u0000');
    expectError(await api.post('/v1/vehicles', { name: 'Car', daily_rate_cents: 100, metadata: { k: 'v\u0000' } }), 422, 'parameter_invalid', 'metadata.k');
    expectError(await api.post('/v1/vehicles', { name: 'Car\ud800', daily_rate_cents: 100 }), 422, 'parameter_invalid', 'name');
    // A JSON escape of a lone surrogate, as a client library may write it.
    expectError(await api.post('/v1/vehicles', '{"name":"Car\\udfff","daily_rate_cents":100}'), 422, 'parameter_invalid', 'name');
    expectError(await api.post(`/v1/bookings/${bookingId}/cancel`, { reason: 'a\u0000b' }), 422, 'parameter_invalid', 'reason');
  });

  it('refuses the same in GraphQL variables and literals, in GraphQL shape with the contract fields', async () => {
    const byVariable = await gql('query($id: ID!) { booking(id: $id) { id } }', { id: 'bk_\u0000' });
    expect(byVariable.errors?.[0].extensions).toMatchObject({ type: 'validation_error', code: 'parameter_invalid', param: 'id', request_id: expect.stringMatching(/^req_/) });
    const byLiteral = await gql('{ booking(id: "bk_\\u0000") { id } }');
    expect(byLiteral.errors?.[0].extensions).toMatchObject({ type: 'validation_error', code: 'parameter_invalid', param: 'id' });
    const surrogate = await gql('mutation($i: CreateVehicleInput!) { createVehicle(input: $i) { id } }', { i: { name: 'x\ud800', dailyRateCents: 100 } });
    expect(surrogate.errors?.[0].extensions).toMatchObject({ code: 'parameter_invalid', param: 'i.name' });
  });

  it('refuses JSON nested thousands of levels with 400 nesting_too_deep (REST and GraphQL variables), never a 500', async () => {
    const deep = `${'['.repeat(5_000)}1${']'.repeat(5_000)}`;
    expectError(await api.post('/v1/vehicles', `{"name":"x","daily_rate_cents":1,"metadata":${deep}}`), 400, 'nesting_too_deep');
    const res = await fetch(`${t.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.business.test_secret_key}`, 'content-type': 'application/json' },
      body: `{"query":"query($id: ID!) { booking(id: $id) { id } }","variables":{"id":"x","deep":${deep}}}`,
    });
    expect((await res.json()).errors[0].extensions).toMatchObject({ code: 'nesting_too_deep', type: 'invalid_request' });
  });

  it('refuses a GraphQL document nested thousands of levels in GraphQL shape, before parsing it, never a 500', async () => {
    const query = `{ ${'booking(id: "x") { vehicle { '.repeat(2_000)} id ${'} } '.repeat(2_000)}}`;
    const res = await gql(query);
    expect(res.status).toBe(400);
    expect(res.errors?.[0].extensions).toMatchObject({ type: 'invalid_request', code: 'query_too_deep', request_id: expect.stringMatching(/^req_/) });
    // A list value nested 20,000 deep overflowed the recursive parser's stack (a 500).
    const list = await gql(`query { vehicles(first: 1) { edges { node { id } } } } query Q($x: [Int] = ${'['.repeat(20_000)}1${']'.repeat(20_000)}) { __typename }`);
    expect(list.status).toBe(400);
    expect(list.errors?.[0].extensions).toMatchObject({ type: 'invalid_request', code: 'query_too_deep', request_id: expect.stringMatching(/^req_/) });
  });

  it('refuses impossible dates and years outside 1970-9999 instead of rolling them over', async () => {
    for (const at of ['2027-02-30T10:00:00Z', '2027-04-31T10:00:00Z', '2027-13-01T10:00:00Z', '2027-01-01T24:00:00Z', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z']) {
      const res = await api.post('/v1/quotes', { vehicle_id: vehicleId, start_at: at, end_at: '2027-06-01T10:00:00Z' });
      expectError(res, 422, 'parameter_invalid', 'start_at');
    }
    // Too long to be a timestamp: refused by its own check, never passed on as one (found by the fuzz).
    const long = await api.post('/v1/bookings', { vehicle_id: vehicleId, start_at: '2027-03-01T10:00:00Z', end_at: 'x'.repeat(5_000), customer: { name: 'A' } });
    expectError(long, 422, 'parameter_invalid', 'end_at');
    const leap = await api.post('/v1/quotes', { vehicle_id: vehicleId, start_at: '2028-02-29T10:00:00Z', end_at: '2028-03-02T10:00:00Z' });
    expect(leap.status).toBe(201);
    expect(leap.body.start_at).toBe('2028-02-29T10:00:00.000Z');
  });

  it('refuses a metadata key __proto__ instead of dropping it', async () => {
    const res = await api.post('/v1/vehicles', '{"name":"Car","daily_rate_cents":100,"metadata":{"__proto__":"x","ok":"y"}}');
    expectError(res, 422, 'parameter_invalid', 'metadata.__proto__');
    const gqlRes = await gql('mutation { createVehicle(input: { name: "Car", dailyRateCents: 100, metadata: { __proto__: "x" } }) { id } }');
    expect(gqlRes.errors?.[0].extensions).toMatchObject({ code: 'parameter_invalid' });
  });

  it('checks the key kind before the body: a publishable key with a bad body gets its 403, a live key on /v1/test/* its 403', async () => {
    const pk = restClient(t.baseUrl, t.business.test_public_key);
    expectError(await pk.post('/v1/bookings', { vehicle_id: 12, start_at: 'soon' }), 403, 'secret_key_required');
    expectError(await pk.post('/v1/bookings', '{"broken":'), 403, 'secret_key_required');
    const live = restClient(t.baseUrl, t.business.live_secret_key);
    expectError(await live.post('/v1/test/bookings', { start_at: 'never', zz: 1 }), 403, 'sandbox_only');
  });

  it('answers POST /graphql with an unsupported content type 415 in GraphQL shape, not an empty body', async () => {
    const res = await fetch(`${t.baseUrl}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${t.business.test_secret_key}`, 'content-type': 'text/plain' }, body: '{ vehicles { edges { node { id } } } }' });
    expect(res.status).toBe(415);
    const body = await res.json();
    expect(body.errors[0].extensions).toMatchObject({ type: 'invalid_request', code: 'unsupported_media_type', request_id: res.headers.get('request-id') });
  });

  it('redacts card numbers whatever surrounds them, before the message reaches storage, events, GraphQL or webhooks', async () => {
    const texts = ['ref 12 4242 4242 4242 4242 thanks', 'card 4242\u00a04242\u00a04242\u00a04242', 'num 4242.4242.4242.4242', '4242\n4242\n4242\n4242 exp 12/30'];
    for (const text of texts) {
      const res = await api.post('/v1/messages', { channel: 'sms', body: text, booking_id: bookingId });
      expect(res.status).toBe(201);
      expect(res.body.redacted).toBe(true);
      expect(res.body.body).not.toMatch(/4242/);
    }
    const events = await api.get(`/v1/events?type=message.created&booking_id=${bookingId}&limit=10`);
    expect(events.body.data).toHaveLength(texts.length);
    expect(JSON.stringify(events.body)).not.toMatch(/4242/);
    const viaGraphQL = await gql(`{ events(type: message_created, bookingId: "${bookingId}", first: 10) { edges { node { data } } } }`.replace('message_created', '"message.created"'));
    expect(JSON.stringify(viaGraphQL.data)).not.toMatch(/4242/);
  });

  it('answers a period with a day the calendar lacks the same over GraphQL', async () => {
    const res = await gql('mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }', { i: { vehicleId, startAt: '2027-02-29T10:00:00Z', ...{ endAt: period(400, 2).end_at } } });
    expect(res.errors?.[0].extensions).toMatchObject({ type: 'validation_error', code: 'parameter_invalid', param: 'start_at' });
  });
});
