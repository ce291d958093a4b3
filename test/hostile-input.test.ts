import { connect, type Socket } from 'node:net';
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

  /** One HTTP/1.1 answer read off a raw socket (its status, headers and body), and whether the server then closed the connection. */
  function exchange(socket: Socket, request: Buffer[]): Promise<{ status: number; headers: Record<string, string>; body: string; closed: Promise<boolean> }> {
    let buffer = Buffer.alloc(0);
    let ended = false;
    const closed = new Promise<boolean>((resolve) => {
      socket.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 5_000).unref();
    });
    socket.on('error', () => {}); // the server may close while the rest of a refused body is still being sent
    socket.on('end', () => (ended = true));
    const answer = new Promise<{ status: number; headers: Record<string, string>; body: string; closed: Promise<boolean> }>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk]);
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length']);
        if (buffer.length < end + 4 + length) return;
        socket.off('data', onData);
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body: buffer.subarray(end + 4, end + 4 + length).toString('utf8'), closed });
      };
      socket.on('data', onData);
      setTimeout(() => reject(new Error(`no answer${ended ? ' (the server closed the connection)' : ''}`)), 10_000).unref();
    });
    for (const part of request) socket.write(part);
    return answer;
  }

  it('answers a body over 1 MiB with 413 and closes the connection, so a second request on it never waits for an answer (REST and GraphQL)', async () => {
    const { port } = new URL(t.baseUrl);
    const over = Buffer.alloc(1_200_000, 'a');
    for (const path of ['/v1/vehicles', '/graphql']) {
      for (const framing of ['content-length', 'chunked'] as const) {
        const socket = connect(Number(port), '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.business.test_secret_key}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\n`;
        const request =
          framing === 'content-length'
            ? [Buffer.from(`${head}Content-Length: ${over.length}\r\n\r\n`), over]
            : [Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n`), ...[0, 1, 2, 3].map((i) => Buffer.concat([Buffer.from(`${(300_000).toString(16)}\r\n`), over.subarray(i * 300_000, (i + 1) * 300_000), Buffer.from('\r\n')])), Buffer.from('0\r\n\r\n')];
        const first = await exchange(socket, request);
        expect({ path, framing, status: first.status, connection: first.headers.connection }).toEqual({ path, framing, status: 413, connection: 'close' });
        const refusal = JSON.parse(first.body);
        expect(refusal.error?.code ?? refusal.errors?.[0].extensions.code).toBe('payload_too_large');
        // The rest of the body is never read as the next request: the server closes the connection.
        socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        expect(await first.closed).toBe(true);
        socket.destroy();
      }
    }
    // A body within the limit keeps the connection for the next request.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const body = JSON.stringify({ name: 'Keep-alive car', daily_rate_cents: 100 });
    const first = await exchange(socket, [Buffer.from(`POST /v1/vehicles HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.business.test_secret_key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)]);
    expect(first.status).toBe(201);
    expect(first.headers.connection).not.toBe('close');
    const second = await exchange(socket, [Buffer.from(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)]);
    expect(second.status).toBe(200);
    socket.destroy();
  });

  it('answers a Host header that makes no URL with 400 in the envelope, never a 500 or a stack trace', async () => {
    const { port } = new URL(t.baseUrl);
    for (const host of ['[::1', 'a b', 'bad host:99999']) {
      for (const path of ['/v1/vehicles', '/graphql']) {
        const socket = connect(Number(port), '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        const answer = await exchange(socket, [Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${t.business.test_secret_key}\r\n\r\n`)]);
        expect({ host, path, status: answer.status }).toEqual({ host, path, status: 400 });
        expect(JSON.parse(answer.body).error).toMatchObject({ type: 'invalid_request', code: 'request_target_invalid', request_id: answer.headers['request-id'] });
        socket.destroy();
      }
    }
  });

  /** One raw request on a fresh connection (bytes as given: latin1), its answer. */
  async function raw(request: string | Buffer) {
    const { port } = new URL(t.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    try {
      return await exchange(socket, [typeof request === 'string' ? Buffer.from(request, 'latin1') : request]);
    } finally {
      socket.destroy();
    }
  }
  const envelopeOf = (answer: { body: string; headers: Record<string, string> }) => {
    const error = JSON.parse(answer.body).error;
    expect(error.request_id).toBe(answer.headers['request-id']);
    return error;
  };

  it("answers the browser booking's odd inputs in the envelope: huge or garbled client secrets, odd Origin headers, bytes that are not HTTP", async () => {
    const pk = t.business.test_public_key;
    const get = (path: string, headers: string) => raw(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${pk}\r\n${headers}\r\n`);
    // Client secrets: bytes outside ASCII, control characters, far too long, in the header or the query.
    for (const [path, headers] of [
      [`/v1/bookings/${bookingId}`, 'X-Client-Secret: \xff\xfe\xfd_secret_\x80\r\n'],
      [`/v1/bookings/${bookingId}`, `X-Client-Secret: ${bookingId}_secret_\t${'A'.repeat(42)}\r\n`],
      [`/v1/bookings/${bookingId}`, `X-Client-Secret: ${'A'.repeat(12_000)}\r\n`],
      [`/v1/bookings/${bookingId}?client_secret=%ff%fe%00`, ''],
      [`/v1/bookings/${bookingId}?client_secret=${'%41'.repeat(3_000)}`, ''],
    ] as const) {
      const answer = await get(path, headers);
      expect({ path: path.slice(0, 60), status: answer.status }).toEqual({ path: path.slice(0, 60), status: 401 });
      expect(envelopeOf(answer)).toMatchObject({ type: 'authentication_error', code: 'invalid_client_secret' });
    }
    // Origins that are no origin, or not allowed: refused, never a 500, and no CORS header.
    for (const origin of ['null', '\xff\xfe', 'http://[::1', 'https://shop.example:99999', `https://${'a'.repeat(8_000)}.example`, 'http://localhost:1/path']) {
      const answer = await get('/v1/public/vehicles', `Origin: ${origin}\r\n`);
      expect({ origin: origin.slice(0, 40), status: answer.status }).toEqual({ origin: origin.slice(0, 40), status: 403 });
      expect(envelopeOf(answer)).toMatchObject({ type: 'authorization_error', code: 'browser_origin_not_allowed' });
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    }
    // Over 16 KiB of headers: 431 in the envelope; a NUL or a bare line feed in a header: 400 in the envelope.
    const huge = await get(`/v1/bookings/${bookingId}`, `X-Client-Secret: ${'A'.repeat(20_000)}\r\n`);
    expect(huge.status).toBe(431);
    expect(envelopeOf(huge)).toMatchObject({ type: 'invalid_request', code: 'headers_too_large' });
    const nul = await get(`/v1/bookings/${bookingId}`, 'X-Client-Secret: a\x00b\r\n');
    expect(nul.status).toBe(400);
    expect(envelopeOf(nul)).toMatchObject({ type: 'invalid_request', code: 'request_malformed' });
    const notHttp = await raw('\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 garbage\r\n\r\n');
    expect(notHttp.status).toBe(400);
    expect(envelopeOf(notHttp)).toMatchObject({ code: 'request_malformed' });
  });

  it("answers the hosted payment page's odd inputs in the envelope or as a page, never a 500", async () => {
    const booking = await createBooking(api, vehicleId);
    const checkout = (await api.post(`/v1/bookings/${booking.id}/checkout`)).body;
    const url = new URL(checkout.url);
    const post = (body: string | Buffer, type: string, path = url.pathname + url.search) =>
      raw(Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]));
    for (const [body, type, status, code] of [
      [Buffer.from([0x6f, 0x75, 0x74, 0x63, 0x6f, 0x6d, 0x65, 0x3d, 0xff, 0xfe, 0x00]), 'application/x-www-form-urlencoded', 422, 'parameter_invalid'],
      ['outcome=pay%00', 'application/x-www-form-urlencoded', 422, 'parameter_invalid'],
      ['{"outcome": ["decline"]}', 'application/json', 422, 'parameter_invalid'],
      ['{"outcome": "pay", "card_number": {"a": 1}}', 'application/json', 422, 'parameter_invalid'],
      ['{"outcome": "pay"', 'application/json', 400, 'invalid_json'],
      [`${'['.repeat(100_000)}`, 'application/json', 400, 'invalid_json'],
      [Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'application/json', 400, 'invalid_json'],
    ] as const) {
      const answer = await post(body, type);
      expect({ body: String(body).slice(0, 30), status: answer.status }).toEqual({ body: String(body).slice(0, 30), status });
      expect(envelopeOf(answer)).toMatchObject({ code });
    }
    // Nothing was paid by any of them.
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('checkout_started');
    // Garbled links: refused as invalid links.
    for (const search of ['?payment=%ff&expires=%00&signature=%C0', `?payment=${checkout.payment_id}&expires=99999999999999999999&signature=x`, url.search.replace(/signature=[^&]*/, `signature=${'A'.repeat(10_000)}`)]) {
      const answer = await raw(`GET ${url.pathname}${search} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      expect(answer.status).toBe(403);
      expect(envelopeOf(answer)).toMatchObject({ code: 'checkout_link_invalid' });
    }
    const badPath = await raw(`GET /checkout/bk_%ff%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(badPath.status).toBe(404);
    expect(envelopeOf(badPath)).toMatchObject({ code: 'route_not_found' });
  });

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
    expectError(await pk.post('/v1/customers', { name: 12, email: 'soon' }), 403, 'secret_key_required');
    expectError(await pk.post('/v1/customers', '{"broken":'), 403, 'secret_key_required');
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
