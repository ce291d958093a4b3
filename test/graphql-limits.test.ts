import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../src/http/edge/steps/graphql-document.ts';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/** GraphQL's limits (depth, aliases, cost, tokens) and its lists read from either end. */
describe.each(ENGINES)('GraphQL limits and lists on %s', (engine) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlClient>;
  const bookings: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(engine);
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const vehicle = await createVehicle(api);
    for (let i = 0; i < 5; i++) bookings.push((await createBooking(api, vehicle.id)).id); // oldest first
  });
  afterAll(() => t?.close());

  const refusal = (res: Awaited<ReturnType<typeof gql>>) => res.errors?.[0].extensions;

  it('refuses 500 aliases of a 100-item list before running anything, in GraphQL shape with the contract fields', async () => {
    const aliases = Array.from({ length: 500 }, (_, i) => `a${i}: bookings(first: 100) { edges { node { id vehicle { id } } } }`).join(' ');
    const res = await gql(`{ ${aliases} }`);
    expect(refusal(res)).toMatchObject({ type: 'invalid_request', code: expect.stringMatching(/^(too_many_aliases|document_too_large)$/), request_id: res.headers.get('request-id') });
    expect(res.data).toBeUndefined();
  });

  it('refuses one alias more than allowed with too_many_aliases', async () => {
    const aliases = Array.from({ length: GRAPHQL_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: booking(id: "${bookings[0]}") { id }`).join(' ');
    expect(refusal(await gql(`{ ${aliases} }`))).toMatchObject({ type: 'invalid_request', code: 'too_many_aliases' });
  });

  it('allows the documented number of aliases', async () => {
    const aliases = Array.from({ length: GRAPHQL_LIMITS.maxAliases }, (_, i) => `a${i}: booking(id: "${bookings[0]}") { id }`).join(' ');
    const res = await gql(`{ ${aliases} }`);
    expect(res.errors).toBeUndefined();
    expect(Object.keys(res.data as object)).toHaveLength(GRAPHQL_LIMITS.maxAliases);
  });

  it('refuses a document deeper than allowed with query_too_deep', async () => {
    const deep = `{ booking(id: "${bookings[0]}") { ${'payment { booking { '.repeat(6)} id ${'} } '.repeat(6)} } }`;
    expect(refusal(await gql(deep))).toMatchObject({ type: 'invalid_request', code: 'query_too_deep' });
  });

  it('answers a full page of 100 bookings with vehicle, customer and payment, its size written in the document', async () => {
    const page = await gql(`{ bookings(first: 100) { edges { node { id state startAt endAt totalCents metadata vehicle { id name make model dailyRateCents } customer { id name email phone } payment { id state amountCents currency } } } } }`);
    expect(page.errors).toBeUndefined();
    expect((page.data as { bookings: { edges: unknown[] } }).bookings.edges).toHaveLength(bookings.length);
  });

  it('refuses a document that would cost too much with query_too_costly', async () => {
    const wide = Array.from({ length: 14 }, (_, i) => `a${i}: bookings(first: 100) { edges { node { ${'id state startAt endAt totalCents '.repeat(1)} vehicle { id name dailyRateCents } customer { id name email } payment { id state amountCents } deposit { id state } charges { id state } } } }`).join(' ');
    const res = await gql(`{ ${wide} }`);
    expect(refusal(res)).toMatchObject({ type: 'invalid_request', code: 'query_too_costly' });
  });

  it('refuses a document of too many tokens with document_too_large', async () => {
    const fields = Array.from({ length: GRAPHQL_LIMITS.maxTokens }, () => 'id').join(' ');
    expect(refusal(await gql(`{ vehicles { edges { node { ${fields} } } } }`))).toMatchObject({ code: 'document_too_large' });
  });

  it('lets introspection through (GraphiQL and code generators need it)', async () => {
    const res = await gql('{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name } } } } } } } }');
    expect(res.errors).toBeUndefined();
    expect(res.data.__schema.types.length).toBeGreaterThan(20);
  });

  describe('Relay lists read from either end', () => {
    const ids = (res: Awaited<ReturnType<typeof gql>>) => (res.data as any).bookings.edges.map((e: { node: { id: string } }) => e.node.id);
    const newestFirst = () => [...bookings].reverse();

    it('first: the newest items; last: the oldest, both newest first', async () => {
      expect(ids(await gql('{ bookings(first: 2) { edges { node { id } } } }'))).toEqual(newestFirst().slice(0, 2));
      const last = await gql('{ bookings(last: 2) { edges { node { id } } pageInfo { hasPreviousPage hasNextPage } } }');
      expect(ids(last)).toEqual(newestFirst().slice(-2));
      expect(last.data.bookings.pageInfo).toEqual({ hasPreviousPage: true, hasNextPage: false });
    });

    it('last with before: the items just before the cursor; first with after: just after it', async () => {
      const order = newestFirst();
      expect(ids(await gql(`{ bookings(last: 2, before: "${order[3]}") { edges { node { id } } } }`))).toEqual(order.slice(1, 3));
      expect(ids(await gql(`{ bookings(first: 2, after: "${order[1]}") { edges { node { id } } } }`))).toEqual(order.slice(2, 4));
    });

    it('refuses first and last together', async () => {
      const res = await gql('{ bookings(first: 1, last: 1) { edges { node { id } } } }');
      expect(res.errors?.[0].extensions).toMatchObject({ type: 'validation_error', code: 'parameter_invalid', param: 'last' });
    });

    it('REST ending_before still takes the page just before the cursor', async () => {
      const order = newestFirst();
      const res = await restClient(t.baseUrl, t.business.test_secret_key).get(`/v1/bookings?limit=2&ending_before=${order[3]}`);
      expect(res.body.data.map((b: { id: string }) => b.id)).toEqual(order.slice(1, 3));
      expect(res.body.has_more).toBe(true);
    });
  });
});
