import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/*
 * Customers: create (one customer per email in a business and environment), list with
 * filters and keyset pages, and a customer's bookings, over REST and GraphQL.
 */
describe.each(ENGINES)('customers on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);
  const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  it('creates a customer and emits customer.created', async () => {
    const res = await api.post('/v1/customers', { name: 'Grace Hopper', email: 'Grace@Example.com', phone: '+1 512 555 0101', metadata: { crm_id: '42', empty: '' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'customer', name: 'Grace Hopper', email: 'Grace@Example.com', phone: '+1 512 555 0101', metadata: { crm_id: '42' }, livemode: false });
    expect(res.body.id).toMatch(/^cus_/);
    expect((await api.get(`/v1/customers/${res.body.id}`)).body.email).toBe('Grace@Example.com');
    const events = (await api.get('/v1/events?type=customer.created&limit=100')).body.data;
    expect(events.find((e: any) => e.data.object.id === res.body.id).data.object).toMatchObject({ object: 'customer', name: 'Grace Hopper' });
  });

  it('refuses a second customer with the same email in any case, naming the first; other businesses and environments are apart', async () => {
    const first = (await api.post('/v1/customers', { name: 'Alan Turing', email: 'alan@example.com' })).body;
    const again = await api.post('/v1/customers', { name: 'A. Turing', email: ' ALAN@example.com ' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict', code: 'customer_exists', param: 'email', customer_id: first.id });
    expect((await restClient(t.baseUrl, t.other.test_secret_key).post('/v1/customers', { name: 'Alan Turing', email: 'alan@example.com' })).status).toBe(201);
    expect((await restClient(t.baseUrl, t.business.live_secret_key).post('/v1/customers', { name: 'Alan Turing', email: 'alan@example.com' })).status).toBe(201);
    // Customers without an email are never duplicates of each other.
    expect((await api.post('/v1/customers', { name: 'No Mail' })).status).toBe(201);
    expect((await api.post('/v1/customers', { name: 'No Mail' })).status).toBe(201);
  });

  it('lets only one of two concurrent creations with one email succeed', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => api.post('/v1/customers', { name: `Racer ${i}`, email: 'race@example.com' })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(ids(await api.get('/v1/customers?email=race@example.com'))).toHaveLength(1);
  });

  it('refuses bad input naming the field', async () => {
    expect((await api.post('/v1/customers', { email: 'x@example.com' })).body.error).toMatchObject({ code: 'parameter_missing', param: 'name' });
    expect((await api.post('/v1/customers', { name: 'X', email: 'not-an-email' })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'email' });
    expect((await api.post('/v1/customers', { name: 'X', nickname: 'x' })).body.error).toMatchObject({ code: 'parameter_unknown' });
  });

  it('lists customers newest first, by email without regard to case and by creation time, in keyset pages', async () => {
    const made: string[] = [];
    for (const name of ['Page A', 'Page B', 'Page C']) {
      made.unshift((await api.post('/v1/customers', { name, email: `${name.replace(' ', '.').toLowerCase()}@pages.example.com` })).body.id);
      await pause();
    }
    const boundary = new Date().toISOString();
    await pause();
    const later = (await api.post('/v1/customers', { name: 'Page D', email: 'Page.D@Pages.Example.com' })).body.id;

    expect(ids(await api.get('/v1/customers?email=PAGE.d%40pages.example.com'))).toEqual([later]);
    expect(ids(await api.get('/v1/customers?email=nobody@pages.example.com'))).toEqual([]);
    expect(ids(await api.get(`/v1/customers?created[gte]=${boundary}`))).toEqual([later]);
    expect(ids(await api.get(`/v1/customers?created[lt]=${boundary}&limit=3`))).toEqual(made);

    // Walk the whole list two at a time: every customer once, newest first.
    const walked: string[] = [];
    let after = '';
    for (;;) {
      const page = await api.get(`/v1/customers?limit=2${after ? `&starting_after=${after}` : ''}`);
      expect(page.body).toMatchObject({ object: 'list', url: '/v1/customers' });
      walked.push(...ids(page));
      if (!page.body.has_more) break;
      after = walked[walked.length - 1];
    }
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked.slice(0, 4)).toEqual([later, ...made]);
    expect(ids(await api.get(`/v1/customers?ending_before=${made[2]}&limit=2`))).toEqual([made[0], made[1]]);

    expect((await api.get('/v1/customers?name=Page')).body.error).toMatchObject({ code: 'parameter_unknown', param: 'name' });
    expect((await api.get('/v1/customers?created[gte]=yesterday')).body.error).toMatchObject({ code: 'parameter_invalid', param: 'created[gte]' });
    expect((await api.get('/v1/customers?limit=101')).body.error).toMatchObject({ param: 'limit' });
    expect(ids(await restClient(t.baseUrl, t.other.test_secret_key).get('/v1/customers?limit=100'))).not.toContain(later);
  });

  it("lists a customer's bookings, filtered by state", async () => {
    const customer = (await api.post('/v1/customers', { name: 'Booked Customer', email: 'booked@example.com' })).body;
    const vehicle = await createVehicle(api);
    const first = await createBooking(api, vehicle.id, { customer: undefined, customer_id: customer.id });
    const second = await createBooking(api, vehicle.id, { customer: undefined, customer_id: customer.id });
    await createBooking(api, vehicle.id); // someone else's
    expect((await api.post(`/v1/bookings/${first.id}/cancel`)).status).toBe(200);

    const all = await api.get(`/v1/customers/${customer.id}/bookings`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', url: `/v1/customers/${customer.id}/bookings`, has_more: false });
    expect(ids(all)).toEqual([second.id, first.id]);
    expect(all.body.data[0]).toMatchObject({ object: 'booking', customer_id: customer.id, state: 'pending_payment' });
    expect(ids(await api.get(`/v1/customers/${customer.id}/bookings?state=canceled`))).toEqual([first.id]);
    expect(ids(await api.get(`/v1/customers/${customer.id}/bookings?limit=1`))).toEqual([second.id]);
    expect(ids(await api.get(`/v1/customers/${customer.id}/bookings?limit=1&starting_after=${second.id}`))).toEqual([first.id]);
    expect((await api.get(`/v1/customers/${customer.id}/bookings?state=lost`)).body.error).toMatchObject({ param: 'state' });
    expect((await api.get('/v1/customers/cus_nope/bookings')).status).toBe(404);
  });

  it('creates and lists over GraphQL', async () => {
    const created = await gql(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id name email } }`, { input: { name: 'Katherine Johnson', email: 'kj@example.com' } });
    expect(created.errors).toBeUndefined();
    const id = created.data.createCustomer.id;
    const dup = await gql(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`, { input: { name: 'K. Johnson', email: 'KJ@example.com' } });
    expect(dup.errors?.[0].extensions).toMatchObject({ code: 'customer_exists', type: 'conflict' });

    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id, { customer: undefined, customer_id: id });
    const res = await gql(
      `query($email: String, $id: ID!) {
        customers(email: $email, first: 5) { edges { node { id email } } pageInfo { hasNextPage } }
        customerBookings(customerId: $id, state: pending_payment) { edges { node { id customer { id } } } }
      }`,
      { email: 'KJ@EXAMPLE.COM', id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.customers).toEqual({ edges: [{ node: { id, email: 'kj@example.com' } }], pageInfo: { hasNextPage: false } });
    expect(res.data.customerBookings.edges).toEqual([{ node: { id: booking.id, customer: { id } } }]);
  });
});
