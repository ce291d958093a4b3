import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createVehicle } from './support/fixtures.ts';
import { loadConfig } from '../src/config.ts';
import { sandboxProcessor } from '../src/processors/sandbox-processor.ts';

/*
 * The browser booking of the embedded components, over HTTP as a browser sends it: the
 * website's allowed_origins, CORS for publishable keys, a booking made with a publishable key,
 * its client_secret (read that one booking, start its checkout, nothing else), the per-address
 * limit, and the hosted payment page the checkout's url opens.
 */

const SITE = 'https://shop.lonestar.example';

/** A request from another client address: the connection's own source is `address` (any 127.x reaches the loopback). */
async function fromAddress(address: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const dispatcher = new Agent({ localAddress: address });
  try {
    const res = await undiciFetch(url, { ...init, dispatcher });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as any };
  } finally {
    await dispatcher.close();
  }
}
const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10) + 'T10:00:00.000Z';

describe.each(ENGINES)('browser booking on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let browser: ReturnType<typeof restClient>;
  let shown: { id: string };
  let hidden: { id: string };

  beforeAll(async () => {
    t = await startTestApp(engine, { browserBookingLimit: 20 });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    browser = restClient(t.baseUrl, t.business.test_public_key);
    shown = await createVehicle(api, { name: 'Shown Sedan' });
    hidden = await createVehicle(api, { name: 'Hidden Van' });
    const site = await api.post('/v1/website', { published: true, published_vehicle_ids: [shown.id], allowed_origins: [SITE, 'http://localhost:8080'] });
    expect(site.status).toBe(200);
  });
  afterAll(async () => t?.close());

  const booking = (vehicleId: string, days: number, extra: Record<string, unknown> = {}) => ({
    vehicle_id: vehicleId, start_at: future(days), end_at: future(days + 2), customer: { name: 'Grace Hopper', email: 'grace@example.com' }, ...extra,
  });

  it('validates allowed_origins: an origin only, https or http for localhost/127.0.0.1, kept as browsers send it', async () => {
    expect((await api.get('/v1/website')).body.allowed_origins).toEqual([SITE, 'http://localhost:8080']);
    for (const [bad, why] of [
      ['http://shop.example', /https/],
      ['https://shop.example/book', /without a path/],
      ['shop.example', /origin/],
      ['https://user@shop.example', /without a path, query, fragment or user/],
      ['ftp://localhost', /https/],
    ] as const) {
      const res = await api.post('/v1/website', { allowed_origins: [SITE, bad] });
      expect(res.status, bad).toBe(422);
      expect(res.body.error, bad).toMatchObject({ type: 'validation_error', param: 'allowed_origins.1' });
      expect(res.body.error.message, bad).toMatch(why);
    }
    const normal = await api.post('/v1/website', { allowed_origins: ['HTTPS://Shop.Lonestar.Example:443/', 'http://127.0.0.1:5173', SITE] });
    expect(normal.body.allowed_origins).toEqual([SITE, 'http://127.0.0.1:5173']);
    await api.post('/v1/website', { allowed_origins: [SITE, 'http://localhost:8080'] });
    // A viewer's key may not change it (website:write: owner, admin, manager).
    const gql = graphqlClient(t.baseUrl, t.business.test_public_key);
    const refused = await gql('mutation { updateWebsite(input: { allowedOrigins: ["https://evil.example"] }) { id } }');
    expect(refused.errors![0].extensions).toMatchObject({ code: 'secret_key_required' });
  });

  it('answers CORS for a publishable key only from allowed origins (and localhost in the sandbox); another origin is refused with no Access-Control-Allow-Origin', async () => {
    const allowed = await browser.get('/v1/public/vehicles', { origin: SITE });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(allowed.headers.get('access-control-expose-headers')).toMatch(/Request-Id/);
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();

    const local = await browser.get('/v1/public/vehicles', { origin: 'http://localhost:49152' });
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:49152');

    const refused = await browser.get('/v1/public/vehicles', { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'authorization_error', code: 'browser_origin_not_allowed' });
    expect(refused.body.error.message).toContain('https://evil.example');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    // Live: no localhost, only what the live website allows.
    const live = restClient(t.baseUrl, t.business.live_public_key);
    const liveLocal = await live.get('/v1/public/vehicles', { origin: 'http://localhost:49152' });
    expect(liveLocal.status).toBe(403);
    expect(liveLocal.headers.get('access-control-allow-origin')).toBeNull();
    // Server-side calls (no Origin) are not concerned.
    expect((await browser.get('/v1/public/vehicles')).status).toBe(200);
  });

  it('lets a publishable key book only a vehicle on the published website; the create answer alone carries client_secret, which reads that booking and starts its checkout, nothing else', async () => {
    const off = await browser.post('/v1/bookings', booking(hidden.id, 10), { origin: SITE });
    expect(off.status).toBe(404);
    expect(off.body.error).toMatchObject({ code: 'resource_missing', param: 'vehicle_id' });
    const existing = await browser.post('/v1/bookings', booking(shown.id, 10, { customer: undefined, customer_id: 'cus_01jd3m4k5n6p7q8r9s0t1v2w3x' }), { origin: SITE });
    expect(existing.status).toBe(422);
    expect(existing.body.error.param).toBe('customer_id');

    const created = await browser.post('/v1/bookings', booking(shown.id, 10), { origin: SITE });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(created.body).toMatchObject({ object: 'booking', state: 'pending_payment', vehicle_id: shown.id, client_secret: expect.stringMatching(new RegExp(`^${created.body.id}_secret_`)) });
    const secret: string = created.body.client_secret;

    // Without the secret, the publishable key reads nothing; with it, that one booking, by header or query parameter.
    expect((await browser.get(`/v1/bookings/${created.body.id}`)).body.error.code).toBe('secret_key_required');
    const read = await browser.get(`/v1/bookings/${created.body.id}`, { 'x-client-secret': secret, origin: SITE });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, state: 'pending_payment', client_secret: null });
    expect((await browser.get(`/v1/bookings/${created.body.id}?client_secret=${secret}`)).status).toBe(200);

    // Another booking, the list, a cancel: not with this caller.
    const other = await api.post('/v1/bookings', booking(shown.id, 20));
    expect((await browser.get(`/v1/bookings/${other.body.id}`, { 'x-client-secret': secret })).body.error).toMatchObject({ code: 'resource_missing' });
    expect((await browser.get(`/v1/bookings/${other.body.id}`, { 'x-client-secret': secret })).status).toBe(404);
    expect((await browser.post(`/v1/bookings/${other.body.id}/checkout`, undefined, { 'x-client-secret': secret })).status).toBe(404);
    expect((await browser.get('/v1/bookings', { 'x-client-secret': secret })).body.error.code).toBe('secret_key_required');
    expect((await browser.post(`/v1/bookings/${created.body.id}/cancel`, {}, { 'x-client-secret': secret })).body.error.code).toBe('secret_key_required');
    expect((await browser.post('/v1/quotes', {}, { 'x-client-secret': secret })).body.error.code).toBe('secret_key_required');
    // A forged or foreign secret: 401.
    const forged = await browser.get(`/v1/bookings/${other.body.id}`, { 'x-client-secret': `${other.body.id}_secret_${secret.split('_secret_')[1]}` });
    expect(forged.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_client_secret' });
    const liveBrowser = restClient(t.baseUrl, t.business.live_public_key);
    expect((await liveBrowser.get(`/v1/bookings/${created.body.id}`, { 'x-client-secret': secret })).body.error.code).toBe('invalid_client_secret');

    // Checkout: url is the hosted payment page; Pay there books it.
    const checkout = await browser.post(`/v1/bookings/${created.body.id}/checkout`, undefined, { 'x-client-secret': secret, origin: SITE });
    expect(checkout.status).toBe(201);
    expect(checkout.body.url).toMatch(new RegExp(`^${t.baseUrl}/checkout/${created.body.id}\\?payment=pay_`));
    const page = await fetch(checkout.body.url, { headers: { accept: 'text/html' } });
    const html = await page.text();
    expect(html).toContain('Card number');
    expect(html).toMatch(/<button type="submit" name="outcome" value="pay">Pay<\/button>/);
    const json = await (await fetch(checkout.body.url)).json();
    expect(json).toMatchObject({ object: 'checkout_page', booking_id: created.body.id, payable: true, state: 'checkout_started', vehicle_name: 'Shown Sedan' });

    const paid = await fetch(checkout.body.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: 'outcome=pay' });
    expect(paid.status).toBe(200);
    expect(await paid.json()).toMatchObject({ outcome: 'paid', payable: false });
    const after = (await api.get(`/v1/bookings/${created.body.id}`)).body;
    expect(['booked', 'confirmed', 'ready_for_pickup']).toContain(after.state);
    expect((await api.get(`/v1/bookings/${created.body.id}/payment`)).body).toMatchObject({ state: 'succeeded' });
    // Paid: the link takes no second payment.
    const again = await fetch(checkout.body.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"outcome":"pay"}' });
    expect(again.status).toBe(409);
    expect((await again.json()).error).toMatchObject({ code: 'checkout_not_payable' });
    // An altered link: refused.
    const altered = await fetch(checkout.body.url.replace(/signature=(.)/, (_m: string, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`));
    expect(altered.status).toBe(403);
    expect((await altered.json()).error.code).toBe('checkout_link_invalid');
  });

  it('holds the same rules over GraphQL: the browser booking caller reads its booking and nothing else', async () => {
    const pk = graphqlClient(t.baseUrl, t.business.test_public_key);
    const created = await pk(
      'mutation($input: CreateBookingInput!) { createBooking(input: $input) { id state clientSecret } }',
      { input: { vehicleId: shown.id, startAt: future(50), endAt: future(52), customer: { name: 'Grace Hopper', email: 'grace@example.com' } } },
      { origin: SITE },
    );
    expect(created.errors).toBeUndefined();
    const { id, clientSecret } = created.data.createBooking;
    expect(clientSecret).toMatch(new RegExp(`^${id}_secret_`));
    const read = await pk('query($id: ID!) { booking(id: $id) { id state clientSecret } }', { id }, { 'x-client-secret': clientSecret, origin: SITE });
    expect(read.data).toEqual({ booking: { id, state: 'pending_payment', clientSecret: null } });
    const other = (await api.post('/v1/bookings', booking(shown.id, 56))).body.id;
    const foreign = await pk('query($id: ID!) { booking(id: $id) { id } }', { id: other }, { 'x-client-secret': clientSecret });
    expect(foreign.errors![0].extensions).toMatchObject({ code: 'resource_missing' });
    const list = await pk('{ bookings(first: 1) { edges { node { id } } } }', {}, { 'x-client-secret': clientSecret });
    expect(list.errors![0].extensions).toMatchObject({ code: 'secret_key_required' });
    const refused = await pk('query($id: ID!) { booking(id: $id) { id } }', { id }, { 'x-client-secret': clientSecret, origin: 'https://evil.example' });
    expect(refused.errors![0].extensions).toMatchObject({ code: 'browser_origin_not_allowed' });
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("declines on the hosted page with the declined test card: the booking returns to pending_payment and payment.failed is recorded", async () => {
    const created = await api.post('/v1/bookings', booking(shown.id, 30));
    expect(created.body.client_secret).toMatch(/_secret_/);
    const checkout = await api.post(`/v1/bookings/${created.body.id}/checkout`);
    expect(checkout.body.url).toContain('/checkout/');
    const declined = await fetch(checkout.body.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' }, body: 'card_number=4000+0000+0000+0002&outcome=pay' });
    expect(declined.status).toBe(200);
    expect(await declined.text()).toContain('The card was declined.');
    expect((await api.get(`/v1/bookings/${created.body.id}`)).body.state).toBe('pending_payment');
    expect((await api.get(`/v1/bookings/${created.body.id}/payment`)).body.state).toBe('failed');
  });

  it("keeps a publishable key's Idempotency-Key per client address: the same key and body from another address get no replay, and no client_secret but their own", async () => {
    const body = booking(shown.id, 100);
    const headers = { origin: SITE, 'idempotency-key': `browser-idem-${engine}` };
    const first = await browser.post('/v1/bookings', body, headers);
    expect(first.status).toBe(201);
    const secret: string = first.body.client_secret;
    // The same address retrying: the first answer again, its secret included.
    const retry = await browser.post('/v1/bookings', body, headers);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);

    // Another address repeating the key and the body runs as a new request: the car is taken.
    const post = (address: string, payload: unknown) => fromAddress(address, `${t.baseUrl}/v1/bookings`, {
      method: 'POST', headers: { authorization: `Bearer ${t.business.test_public_key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload),
    });
    const elsewhere = await post('127.0.0.2', body);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error).toMatchObject({ type: 'conflict', code: 'vehicle_unavailable' });
    expect(elsewhere.text).not.toContain(secret);
    expect(elsewhere.text).not.toContain(first.body.id);
    // Its own outcome is what it gets replayed.
    const elsewhereAgain = await post('127.0.0.2', body);
    expect(elsewhereAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(elsewhereAgain.body.error.code).toBe('vehicle_unavailable');
    // A third address with the same key and a free period: its own booking, with its own secret.
    const third = await post('127.0.0.3', booking(shown.id, 104));
    expect(third.status).toBe(201);
    expect(third.body.id).not.toBe(first.body.id);
    expect(third.body.client_secret).toMatch(new RegExp(`^${third.body.id}_secret_`));
    expect(third.text).not.toContain(secret);

    // A secret key's keys are the business's, whatever the address: the replay reaches any of them.
    const serverBody = booking(shown.id, 108);
    const server = await api.post('/v1/bookings', serverBody, { 'idempotency-key': `server-idem-${engine}` });
    const fromElsewhere = await fromAddress('127.0.0.2', `${t.baseUrl}/v1/bookings`, {
      method: 'POST', headers: { authorization: `Bearer ${t.business.test_secret_key}`, 'content-type': 'application/json', 'idempotency-key': `server-idem-${engine}` }, body: JSON.stringify(serverBody),
    });
    expect(fromElsewhere.headers.get('idempotent-replayed')).toBe('true');
    expect(fromElsewhere.body.id).toBe(server.body.id);
  });

  it("reads over GraphQL, with a booking's client_secret, what REST shows: the booking and its checkout, not their related objects", async () => {
    const pk = graphqlClient(t.baseUrl, t.business.test_public_key);
    const created = await browser.post('/v1/bookings', booking(shown.id, 112), { origin: SITE });
    const { id, client_secret: secret } = created.body;
    const as = { 'x-client-secret': secret, origin: SITE };
    const own = await pk('query($id: ID!) { booking(id: $id) { id state totalCents gates { payment } dayRates { date } } }', { id }, as);
    expect(own.errors).toBeUndefined();
    expect(own.data.booking).toMatchObject({ id, state: 'pending_payment', gates: { payment: 'pending' } });
    for (const [query, field] of [
      ['query($id: ID!) { booking(id: $id) { id customer { email phone metadata } } }', 'Booking.customer'],
      ['query($id: ID!) { booking(id: $id) { id payment { state failureMessage } } }', 'Booking.payment'],
      ['query($id: ID!) { booking(id: $id) { ...Money } } fragment Money on Booking { transactions { amountCents } }', 'Booking.transactions'],
      ['query($id: ID!) { ... on Query { booking(id: $id) { ... on Booking { charges { id } } } } }', 'Booking.charges'],
      ['query($id: ID!) { booking(id: $id) { deposit { id } } }', 'Booking.deposit'],
      ['mutation($id: ID!) { createCheckout(bookingId: $id) { id url booking { customer { email } } } }', 'Checkout.booking'],
    ] as const) {
      const refused = await pk(query, { id }, as);
      expect(refused.data ?? null, field).toBeNull();
      expect(refused.errors![0].extensions, field).toMatchObject({ type: 'authorization_error', code: 'secret_key_required' });
      expect(refused.errors![0].message, field).toContain(field);
    }
    // The refused checkout started nothing; the one REST would answer does.
    expect((await api.get(`/v1/bookings/${id}`)).body.state).toBe('pending_payment');
    const checkout = await pk('mutation($id: ID!) { createCheckout(bookingId: $id) { id bookingId url clientSecret } }', { id }, as);
    expect(checkout.errors).toBeUndefined();
    expect(checkout.data.createCheckout).toMatchObject({ bookingId: id, url: expect.stringContaining(`/checkout/${id}?`) });
    // A secret key still reads the related objects.
    const sk = graphqlClient(t.baseUrl, t.business.test_secret_key);
    expect((await sk('query($id: ID!) { booking(id: $id) { customer { email } } }', { id })).data.booking.customer.email).toBe('grace@example.com');
  });

  it("counts every browser-booking call against the address's limit: a GraphQL request's aliases and root fragments too", async () => {
    const input = (i: number) => `{ vehicleId: "${shown.id}", startAt: "${future(200 + i * 3)}", endAt: "${future(201 + i * 3)}", customer: { name: "Grace Hopper", email: "grace@example.com" } }`;
    const gqlFrom = (address: string, query: string) => fromAddress(address, `${t.baseUrl}/graphql`, {
      method: 'POST', headers: { authorization: `Bearer ${t.business.test_public_key}`, 'content-type': 'application/json', origin: SITE }, body: JSON.stringify({ query }),
    });
    // Twelve bookings in one request, inside an inline fragment at the root: twelve calls (the limit here is 20).
    const twelve = await gqlFrom('127.0.0.4', `mutation { ... on Mutation { ${Array.from({ length: 12 }, (_, i) => `b${i}: createBooking(input: ${input(i)}) { id }`).join(' ')} } }`);
    expect(twelve.body.errors).toBeUndefined();
    expect(Object.keys(twelve.body.data)).toHaveLength(12);
    // Nine more through a named fragment: 21 calls, over the limit; refused before any runs.
    const before = (await api.get(`/v1/bookings?vehicle_id=${shown.id}&limit=100`)).body.data.length;
    const nine = await gqlFrom('127.0.0.4', `mutation { ...More } fragment More on Mutation { ${Array.from({ length: 9 }, (_, i) => `c${i}: createBooking(input: ${input(20 + i)}) { id }`).join(' ')} }`);
    // GraphQL's answer to a refused operation: its error, as every refusal over GraphQL.
    expect(nine.body.errors[0].extensions).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited', status: 429 });
    expect(nine.body.data ?? null).toBeNull();
    expect(Number(nine.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.get(`/v1/bookings?vehicle_id=${shown.id}&limit=100`)).body.data.length).toBe(before);
    // Another address has its own count.
    const other = await gqlFrom('127.0.0.5', `mutation { createBooking(input: ${input(40)}) { id } }`);
    expect(other.body.errors).toBeUndefined();
  });

  it('limits browser-booking calls per client address', async () => {
    let last = 0;
    for (let i = 0; i < 25 && last !== 429; i++) last = (await browser.post('/v1/bookings', booking(shown.id, 40 + i * 3), { origin: SITE })).status;
    expect(last).toBe(429);
    const res = await browser.post('/v1/bookings', booking(shown.id, 80), { origin: SITE });
    expect(res.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(res.body.error.message).toMatch(/address/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // The fleet is not a browser booking: not counted.
    expect((await browser.get('/v1/public/vehicles', { origin: SITE })).status).toBe(200);
  });
});

describe('the live hosted payment page', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A live processor without a hosted page of its own (as Stripe's PaymentIntents): the service's page mounts the processor's form.
    t = await startTestApp('pglite', { stripe: { ...loadConfig({}).stripe, publishableKey: 'pk_test_51embedTestKey' } }, { processors: { test: sandboxProcessor(), live: sandboxProcessor() } });
  });
  afterAll(async () => t?.close());

  it("mounts Stripe.js's payment form with the client secret from the link's fragment; the sandbox's test card is refused there", async () => {
    const api = restClient(t.baseUrl, t.business.live_secret_key);
    const browser = restClient(t.baseUrl, t.business.live_public_key);
    const vehicle = await createVehicle(api, { name: 'Live Sedan' });
    await api.post('/v1/website', { published: true, published_vehicle_ids: [vehicle.id], allowed_origins: [SITE] });
    const created = await browser.post('/v1/bookings', { vehicle_id: vehicle.id, start_at: future(5), end_at: future(7), customer: { name: 'Live Customer', email: 'live@example.com' } }, { origin: SITE });
    expect(created.status).toBe(201);
    const checkout = await browser.post(`/v1/bookings/${created.body.id}/checkout`, undefined, { 'x-client-secret': created.body.client_secret, origin: SITE });
    expect(checkout.status).toBe(201);
    const url = new URL(checkout.body.url);
    expect(url.pathname).toBe(`/checkout/${created.body.id}`);
    expect(new URLSearchParams(url.hash.slice(1)).get('client_secret')).toBe(checkout.body.client_secret);

    const page = await fetch(checkout.body.url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('script-src \'self\' https://js.stripe.com');
    const html = await page.text();
    expect(html).toContain('<script src="https://js.stripe.com/v3/"></script>');
    expect(html).toContain('data-key="pk_test_51embedTestKey"');
    expect(html).not.toContain(checkout.body.client_secret); // it stays in the fragment
    expect(html).not.toContain('Card number');
    const script = await fetch(`${t.baseUrl}/checkout/stripe-page.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('confirmPayment');

    const testCard = await fetch(checkout.body.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"outcome":"pay"}' });
    expect(testCard.status).toBe(400);
    expect((await testCard.json()).error.code).toBe('test_card_sandbox_only');
  });
});
