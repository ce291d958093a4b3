// Live events over GraphQL subscriptions (a real graphql-ws client over real HTTP):
// graphql-ws on /graphql and SSE through the same endpoint, scoped by the key to one business
// and one environment, on both storage engines; and across two API processes through Redis.
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openDatabase } from '../src/db/database.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { spawnServer } from './support/processes.ts';

// ------------------------------------------------------------------ operations

const EVENT_FIELDS = /* GraphQL */ `
  fragment EventFields on Event { id type apiVersion createdAt livemode data request }`;

const BOOKING_EVENTS = /* GraphQL */ `
  subscription BookingEvents($bookingId: ID!) {
    bookingEvents(bookingId: $bookingId) { ...EventFields }
  }
  ${EVENT_FIELDS}`;

const EVENTS = /* GraphQL */ `
  subscription Events($types: [String!]) {
    events(types: $types) { ...EventFields }
  }
  ${EVENT_FIELDS}`;

const EVENT = /* GraphQL */ `
  query Event($id: ID!) {
    event(id: $id) { ...EventFields }
  }
  ${EVENT_FIELDS}`;

const CREATE_VEHICLE = /* GraphQL */ `
  mutation CreateVehicle($input: CreateVehicleInput!) {
    createVehicle(input: $input) { id }
  }`;

// ------------------------------------------------------------------ helpers

interface GqlEvent {
  id: string;
  type: string;
  apiVersion: string;
  createdAt: string;
  livemode: boolean;
  data: { object: Record<string, any> };
  request: { id: string | null; idempotency_key: string | null };
}

type Result = FormattedExecutionResult<Record<string, GqlEvent>, unknown>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Poll until `probe` answers something truthy. */
async function until<T>(probe: () => T | null | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const clients: Client[] = [];
const connected = new WeakSet<Client>();

/** A graphql-ws client (the `ws` implementation) sending these connection parameters. */
function wsClient(baseUrl: string, connectionParams: Record<string, unknown>) {
  const client = createClient({ url: `${baseUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0 });
  client.on('connected', () => connected.add(client));
  clients.push(client);
  return client;
}

const keyed = (key: string) => ({ authorization: `Bearer ${key}` });

/** One subscription and everything it has received so far. */
function subscription(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const results: Result[] = [];
  const errors: unknown[] = [];
  let completed = false;
  const dispose = client.subscribe<Record<string, GqlEvent>>({ query, variables }, {
    next: (r) => results.push(r),
    error: (e) => errors.push(e),
    complete: () => (completed = true),
  });
  const events = () => results.flatMap((r) => (r.data ? Object.values(r.data) : []));
  return {
    results,
    errors,
    events,
    dispose,
    get completed() {
      return completed;
    },
    /** The first event matching `predicate`, once it has arrived. */
    waitFor: (predicate: (e: GqlEvent) => boolean, what: string) => until(() => events().find(predicate), what),
  };
}

/**
 * graphql-ws acknowledges the connection but not a subscription: give the server a moment to
 * check the arguments and listen on the topic before causing the events under test.
 */
async function subscribed(client: Client) {
  await until(() => connected.has(client), 'the connection');
  await sleep(400);
}

/** What a connection was closed with, when the server refuses it. */
function closeOf(client: Client): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => client.on('closed', (event) => resolve(event as { code: number; reason: string })));
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

// ------------------------------------------------------------------ both engines

describe.each(ENGINES)('GraphQL subscriptions on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(() => t?.close());

  it('bookingEvents over graphql-ws: a REST cancel arrives as the same event the events API and Query.event show', async () => {
    // Given a booking and a subscriber to its events
    const booking = await createBooking(api, (await createVehicle(api)).id);
    const client = wsClient(t.baseUrl, keyed(t.business.test_secret_key));
    const sub = subscription(client, BOOKING_EVENTS, { bookingId: booking.id });
    await subscribed(client);

    // When it is canceled over REST
    const canceled = await api.post(`/v1/bookings/${booking.id}/cancel`);
    expect(canceled.status).toBe(200);

    // Then the subscriber receives booking.canceled, the very event of GET /v1/events/{id}
    const event = await sub.waitFor((e) => e.type === 'booking.canceled', 'booking.canceled');
    const rest = await api.get(`/v1/events/${event.id}`);
    expect(rest.status).toBe(200);
    expect(event.data.object.state).toBe('canceled');
    expect(event).toEqual({
      id: rest.body.id,
      type: rest.body.type,
      apiVersion: rest.body.api_version,
      createdAt: rest.body.created_at,
      livemode: rest.body.livemode,
      data: rest.body.data,
      request: rest.body.request,
    });
    expect(event.request.id).toBe(canceled.headers.get('request-id'));
    // ... and the same fields as Query.event
    const queried = await graphqlClient(t.baseUrl, t.business.test_secret_key)(EVENT, { id: event.id });
    expect(queried.data.event).toEqual(event);
    // Only events of this booking. (Its booking.created may come too: the relay can publish it
    // just after the subscription opened, since a subscriber sees what is published from then on.)
    expect(sub.events().every((e) => e.data.object.id === booking.id)).toBe(true);
    expect(sub.errors).toEqual([]);
  });

  it('events(types) delivers only the asked types', async () => {
    // Given a subscriber to booking.created only
    const client = wsClient(t.baseUrl, keyed(t.business.test_secret_key));
    const sub = subscription(client, EVENTS, { types: ['booking.created'] });
    await subscribed(client);

    // When one booking is created and canceled, then a second created
    const vehicle = await createVehicle(api);
    const first = await createBooking(api, vehicle.id);
    await api.post(`/v1/bookings/${first.id}/cancel`);
    const second = await createBooking(api, vehicle.id);

    // Then both creations arrive (in order), the cancel between them does not
    await sub.waitFor((e) => e.data.object.id === second.id, 'the second booking.created');
    const mine = sub.events().filter((e) => [first.id, second.id].includes(e.data.object.id));
    expect(mine.map((e) => [e.type, e.data.object.id])).toEqual([['booking.created', first.id], ['booking.created', second.id]]);
    expect(sub.events().every((e) => e.type === 'booking.created')).toBe(true);
  });

  it('keeps tenants and environments apart: another business and a live key receive nothing of our test events', async () => {
    // Given subscribers of our test key, our live key and another business's test key
    const ours = wsClient(t.baseUrl, keyed(t.business.test_secret_key));
    const live = wsClient(t.baseUrl, keyed(t.business.live_secret_key));
    const foreign = wsClient(t.baseUrl, keyed(t.other.test_secret_key));
    const oursSub = subscription(ours, EVENTS);
    const liveSub = subscription(live, EVENTS);
    const foreignSub = subscription(foreign, EVENTS);
    await Promise.all([subscribed(ours), subscribed(live), subscribed(foreign)]);

    // When our test key creates a booking, and our live key one in production
    const testBooking = await createBooking(api, (await createVehicle(api)).id);
    const liveApi = restClient(t.baseUrl, t.business.live_secret_key);
    const liveBooking = await createBooking(liveApi, (await createVehicle(liveApi)).id);

    // Then each arrives in its own environment only, and nothing reaches the other business
    const seen = await oursSub.waitFor((e) => e.data.object.id === testBooking.id, 'our test event');
    expect(seen.livemode).toBe(false);
    const liveSeen = await liveSub.waitFor((e) => e.data.object.id === liveBooking.id, 'our live event');
    expect(liveSeen.livemode).toBe(true);
    await sleep(500);
    expect(liveSub.events().every((e) => e.livemode)).toBe(true);
    expect(liveSub.events().some((e) => e.data.object.id === testBooking.id)).toBe(false);
    expect(oursSub.events().some((e) => e.data.object.id === liveBooking.id)).toBe(false);
    expect(foreignSub.events()).toEqual([]);
  });

  it('refuses a connection without a valid key: 4401 with the contract code as reason', async () => {
    const none = wsClient(t.baseUrl, {});
    const noneClosed = closeOf(none);
    const noneSub = subscription(none, EVENTS);
    expect(await noneClosed).toMatchObject({ code: 4401, reason: 'missing_api_key' });
    await until(() => noneSub.errors.length > 0, 'the error');
    expect(noneSub.events()).toEqual([]);

    const unknownKey = wsClient(t.baseUrl, { Authorization: `Bearer svc_test_sk_${'x'.repeat(40)}` });
    const unknownKeyClosed = closeOf(unknownKey);
    subscription(unknownKey, EVENTS);
    expect(await unknownKeyClosed).toMatchObject({ code: 4401, reason: 'invalid_api_key' });
  });

  it('answers resource_missing for a booking of another business, and checks arguments and permissions', async () => {
    // Given a booking of the other business
    const otherApi = restClient(t.baseUrl, t.other.test_secret_key);
    const theirs = await createBooking(otherApi, (await createVehicle(otherApi)).id);
    const client = wsClient(t.baseUrl, keyed(t.business.test_secret_key));

    // When we subscribe to its events, then the contract's error, as for any read of it
    const foreign = subscription(client, BOOKING_EVENTS, { bookingId: theirs.id });
    await until(() => foreign.completed || foreign.errors.length > 0, 'the answer');
    const errors = [...foreign.results.flatMap((r) => r.errors ?? []), ...(foreign.errors.flat() as unknown[])] as { extensions: Record<string, unknown> }[];
    expect(errors).toHaveLength(1);
    expect(errors[0].extensions).toMatchObject({ type: 'invalid_request', code: 'resource_missing', status: 404 });
    expect(errors[0].extensions.request_id).toMatch(/^req_/);
    expect(foreign.events()).toEqual([]);

    // An unknown event type is a validation error
    const unknown = subscription(client, EVENTS, { types: ['booking.exploded'] });
    await until(() => unknown.completed || unknown.errors.length > 0, 'the answer');
    expect(unknown.results[0].errors?.[0]).toMatchObject({ extensions: { type: 'validation_error', code: 'parameter_invalid', param: 'types.0' } });

    // A publishable key lacks events:read, as over HTTP
    const publishable = subscription(wsClient(t.baseUrl, keyed(t.business.test_public_key)), EVENTS);
    await until(() => publishable.completed || publishable.errors.length > 0, 'the answer');
    expect(publishable.results[0].errors?.[0]).toMatchObject({ extensions: { type: 'authorization_error', code: 'secret_key_required' } });

    // A mutation goes over HTTP (idempotency, audit log), not over the socket
    const mutation = subscription(client, CREATE_VEHICLE, { input: { name: 'X', dailyRateCents: 1, depositCents: 0, includedMiles: 1, extraMileFeeCents: 0 } });
    await until(() => mutation.completed || mutation.errors.length > 0, 'the answer');
    expect(mutation.errors).toMatchObject([[{ extensions: { type: 'invalid_request', code: 'method_not_allowed' } }]]);
  });

  it("names each answer's own request in GraphQL's errors, though yoga caches them per document", async () => {
    const client = wsClient(t.baseUrl, keyed(t.business.test_secret_key));
    const ids: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const invalid = subscription(client, 'subscription { nope }');
      await until(() => invalid.errors.length > 0, 'the validation error');
      expect(invalid.errors[0]).toMatchObject([{ extensions: { type: 'invalid_request', code: 'graphql_validation_failed' } }]);
      ids.push((invalid.errors[0] as { extensions: { request_id: string } }[])[0].extensions.request_id);
    }
    expect(new Set(ids).size).toBe(2);

    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    for (let i = 0; i < 2; i++) {
      const res = await gql('{ nope }');
      expect(res.errors?.[0].extensions.request_id).toBe(res.headers.get('request-id'));
    }
  });

  it('serves the same subscription over SSE through POST /graphql', async () => {
    // Given a booking and an SSE subscriber to its events
    const booking = await createBooking(api, (await createVehicle(api)).id);
    const abort = new AbortController();
    const res = await fetch(`${t.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.business.test_secret_key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: BOOKING_EVENTS, variables: { bookingId: booking.id } }),
      signal: abort.signal,
    });
    try {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.headers.get('request-id')).toMatch(/^req_/);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      await sleep(400);

      // When it is canceled over REST
      await api.post(`/v1/bookings/${booking.id}/cancel`);

      // Then the event arrives on the stream
      let buffer = '';
      let event: GqlEvent | undefined;
      const deadline = Date.now() + 15_000;
      while (!event && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        const lines = (buffer + value).split('\n');
        buffer = lines.pop()!; // an incomplete line waits for the next chunk
        for (const line of lines) {
          if (!line.startsWith('data:')) continue;
          const payload = JSON.parse(line.slice(5)) as Result;
          if (payload.data?.bookingEvents.type === 'booking.canceled') event = payload.data.bookingEvents;
        }
      }
      expect(event).toMatchObject({ type: 'booking.canceled', livemode: false, data: { object: { id: booking.id, state: 'canceled' } } });
      const rest = await api.get(`/v1/events/${event!.id}`);
      expect(rest.body.data).toEqual(event!.data);
    } finally {
      abort.abort();
    }
  });
});

// ------------------------------------------------------------------ two processes

describe('GraphQL subscriptions across two API processes with Redis (postgres)', () => {
  let pg: Awaited<ReturnType<typeof createTestPostgresDatabase>>;
  let a: Awaited<ReturnType<typeof spawnServer>> | undefined;
  let b: Awaited<ReturnType<typeof spawnServer>> | undefined;
  let business: CreatedBusiness;

  beforeAll(async () => {
    pg = await createTestPostgresDatabase();
    const db = await openDatabase({ databaseUrl: pg.url }); // migrates
    business = await createBusiness(db.prisma, { name: 'Two Process Rentals' });
    await db.close();
    const env = { DATABASE_URL: pg.url, REDIS_URL: 'redis://127.0.0.1:6379', WEBHOOK_WORKER: 'off' };
    [a, b] = await Promise.all([spawnServer(env), spawnServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await pg?.drop();
  });

  it('a subscriber on process A receives the event of a REST call to process B', async () => {
    // Given a booking made on B and a subscriber to its events on A
    const onB = restClient(b!.baseUrl, business.test_secret_key);
    const booking = await createBooking(onB, (await createVehicle(onB)).id);
    const client = wsClient(a!.baseUrl, keyed(business.test_secret_key));
    const sub = subscription(client, BOOKING_EVENTS, { bookingId: booking.id });
    await subscribed(client);

    // When B cancels it
    const canceled = await onB.post(`/v1/bookings/${booking.id}/cancel`);
    expect(canceled.status).toBe(200);

    // Then A's subscriber receives it, as the events API of A shows it
    const event = await sub.waitFor((e) => e.type === 'booking.canceled', 'booking.canceled through Redis');
    const onA = await restClient(a!.baseUrl, business.test_secret_key).get(`/v1/events/${event.id}`);
    expect(event).toMatchObject({ id: onA.body.id, createdAt: onA.body.created_at, data: onA.body.data, request: { id: canceled.headers.get('request-id') } });
    expect(event.data.object.state).toBe('canceled');
  });
});
