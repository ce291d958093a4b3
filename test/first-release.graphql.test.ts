// The first-release operations (the spec, "What the service does" item 5) over GraphQL, on both
// storage engines: what an integrator sees through POST /graphql with a Bearer key, the
// contract's errors in `extensions`, and the cost of nested reads in SQL statements.
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, period, startTestApp, type Engine, type TestApp } from './support/app.ts';

// ------------------------------------------------------------------ operations

const CREATE_VEHICLE = /* GraphQL */ `
  mutation CreateVehicle($input: CreateVehicleInput!) {
    createVehicle(input: $input) { id name }
  }`;

const VEHICLES = /* GraphQL */ `
  query Vehicles($first: Int, $after: String) {
    vehicles(first: $first, after: $after) {
      edges { cursor node { id name } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;

const VEHICLE = /* GraphQL */ `
  query Vehicle($id: ID!) {
    vehicle(id: $id) {
      id livemode name status currency dailyRateCents depositCents includedMiles extraMileFeeCents
      unlimitedMilesDailyCents metadata createdAt
    }
  }`;

const AVAILABILITY = /* GraphQL */ `
  query Availability($startAt: DateTime!, $endAt: DateTime!, $first: Int) {
    availability(startAt: $startAt, endAt: $endAt, first: $first) {
      edges { cursor node { id } }
      pageInfo { hasNextPage }
    }
  }`;

const CREATE_QUOTE = /* GraphQL */ `
  mutation CreateQuote($input: CreateQuoteInput!) {
    createQuote(input: $input) {
      id livemode vehicleId startAt endAt unlimitedMiles days currency dailyRateCents rentalCents
      unlimitedMilesFeeCents deliveryFeeCents depositCents includedMiles extraMileFeeCents totalCents
      available expiresAt
    }
  }`;

const BOOKING_FIELDS = /* GraphQL */ `
  id livemode state vehicleId customerId quoteId startAt endAt unlimitedMiles days currency
  dailyRateCents rentalCents unlimitedMilesFeeCents deliveryFeeCents depositCents includedMiles
  extraMileFeeCents totalCents holdExpiresAt canceledAt cancellationReason metadata nextStates
  gates { payment identity agreement deposit insurance }`;

const CREATE_BOOKING = /* GraphQL */ `
  mutation CreateBooking($input: CreateBookingInput!) {
    createBooking(input: $input) { ${BOOKING_FIELDS} }
  }`;

const BOOKING = /* GraphQL */ `
  query Booking($id: ID!) {
    booking(id: $id) {
      ${BOOKING_FIELDS}
      vehicle { id name }
      customer { id name }
      payment { id bookingId state amountCents amountRefundedCents currency }
      deposit { id bookingId state amountCents currency }
    }
  }`;

const CANCEL_BOOKING = /* GraphQL */ `
  mutation CancelBooking($id: ID!, $reason: String) {
    cancelBooking(id: $id, input: { reason: $reason }) { id state canceledAt cancellationReason nextStates }
  }`;

const CUSTOMER = /* GraphQL */ `
  query Customer($id: ID!) {
    customer(id: $id) { id livemode name email phone createdAt }
  }`;

const BOOKING_PAYMENT = /* GraphQL */ `
  query BookingPayment($bookingId: ID!) {
    bookingPayment(bookingId: $bookingId) { id livemode bookingId state amountCents amountRefundedCents currency }
  }`;

const BOOKING_DEPOSIT = /* GraphQL */ `
  query BookingDeposit($bookingId: ID!) {
    bookingDeposit(bookingId: $bookingId) { id livemode bookingId state amountCents capturedCents currency }
  }`;

const BOOKING_CHARGES = /* GraphQL */ `
  query BookingCharges($bookingId: ID!, $first: Int) {
    bookingCharges(bookingId: $bookingId, first: $first) {
      edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;

const SEND_MESSAGE = /* GraphQL */ `
  mutation SendMessage($input: SendMessageInput!) {
    sendMessage(input: $input) { id livemode conversationId bookingId channel direction body redacted }
  }`;

const BOOKINGS_WITH_RELATIONS = /* GraphQL */ `
  query BookingsWithRelations($first: Int) {
    bookings(first: $first) {
      edges { node { id vehicle { id } customer { id name } } }
    }
  }`;

// ------------------------------------------------------------------ helpers

type GqlResponse = Awaited<ReturnType<ReturnType<typeof graphqlClient>>>;

/** The contract's error in `errors[0].extensions`, with the request id of the response. */
function expectContractError(res: GqlResponse, expected: { type: string; code: string; param?: string }) {
  expect(res.status, 'never a 500').toBeLessThan(500);
  expect(res.errors, JSON.stringify(res.data)).toBeDefined();
  const extensions = res.errors![0].extensions;
  expect(extensions).toMatchObject(expected);
  expect(extensions.code).not.toBe('internal_error');
  expect(extensions.request_id).toMatch(/^req_/);
  expect(extensions.request_id).toBe(res.headers.get('request-id'));
  return res.errors![0];
}

/** The data of a successful answer, failing with the errors otherwise. */
function dataOf<T = any>(res: GqlResponse): T {
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.data as T;
}

/** POST /graphql with exactly these headers (the harness's client always sends a key). */
async function rawGraphql(baseUrl: string, headers: Record<string, string>, query: string) {
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/**
 * Every SQL statement the app sends while `fn` runs. Prisma 7 with a driver adapter has no
 * query log unless the client was built with one (src/db/database.ts builds it without), and
 * `$on` / `$extends` would only see our own client, so this wraps the driver the adapter
 * calls: `pg.Client#query` (PrismaPg goes through the pool's clients) or `PGlite#query`
 * (PrismaPGlite outside transactions). Background pollers also talk to the database, so
 * callers filter the statements they count.
 */
async function sqlDuring<T>(engine: Engine, fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const proto = (engine === 'postgres' ? pg.Client.prototype : PGlite.prototype) as unknown as Record<string, unknown>;
  const hadOwn = Object.hasOwn(proto, 'query');
  const original = proto.query as (...args: unknown[]) => unknown;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const sql = args[0];
    statements.push(typeof sql === 'string' ? sql : String((sql as { text?: unknown })?.text ?? ''));
    return original.apply(this, args);
  };
  try {
    return { result: await fn(), statements };
  } finally {
    if (hadOwn) proto.query = original;
    else delete proto.query;
  }
}

/** A period `offset` days ahead lasting `days`, starting at a whole hour (see `period`). */
const at = (offset: number, days: number) => {
  const p = period(offset, days);
  return { startAt: p.start_at, endAt: p.end_at };
};

const CARD_TEXT = 'Here is my card 4242 4242 4242 4242, cvc 123, see you at pickup';

// ------------------------------------------------------------------ suite

describe.each(ENGINES)('first release over GraphQL on %s', (engine) => {
  let t: TestApp;
  let gql: ReturnType<typeof graphqlClient>;
  let publicGql: ReturnType<typeof graphqlClient>;
  let liveGql: ReturnType<typeof graphqlClient>;
  let otherGql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    publicGql = graphqlClient(t.baseUrl, t.business.test_public_key);
    liveGql = graphqlClient(t.baseUrl, t.business.live_secret_key);
    otherGql = graphqlClient(t.baseUrl, t.other.test_secret_key);
  });
  afterAll(() => t?.close());

  /** A vehicle at $49/day, $250 deposit, 200 miles a day, 35¢ a mile over, unlimited miles $15/day. */
  async function givenVehicle(overrides: Record<string, unknown> = {}, client = gql) {
    const res = await client(CREATE_VEHICLE, {
      input: {
        name: 'Toyota Corolla',
        dailyRateCents: 4900,
        depositCents: 25000,
        includedMiles: 200,
        extraMileFeeCents: 35,
        unlimitedMilesDailyCents: 1500,
        ...overrides,
      },
    });
    return dataOf(res).createVehicle as { id: string; name: string };
  }

  async function givenBooking(vehicleId: string, when: { startAt: string; endAt: string }, extra: Record<string, unknown> = {}, client = gql) {
    const res = await client(CREATE_BOOKING, {
      input: { vehicleId, ...when, customer: { name: 'Ada Lovelace', email: 'ada@example.com' }, ...extra },
    });
    return dataOf(res).createBooking as Record<string, any> & { id: string; customerId: string };
  }

  describe('Query.vehicles and Query.vehicle', () => {
    it('lists the fleet newest first as a Relay connection whose cursors are the ids, paging with first/after', async () => {
      // Given three vehicles, created in this order
      const a = await givenVehicle({ name: 'A' });
      const b = await givenVehicle({ name: 'B' });
      const c = await givenVehicle({ name: 'C' });

      // When a publishable key reads the first page of two
      const first = dataOf(await publicGql(VEHICLES, { first: 2 })).vehicles;

      // Then the newest two come first, each cursor is the item's id, and there is more
      expect(first.edges.map((e: any) => e.node.id)).toEqual([c.id, b.id]);
      for (const edge of first.edges) expect(edge.cursor).toBe(edge.node.id);
      expect(first.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: c.id, endCursor: b.id });

      // When it reads the page after the last cursor
      const second = dataOf(await publicGql(VEHICLES, { first: 2, after: first.pageInfo.endCursor })).vehicles;

      // Then the page continues with the next older vehicle
      expect(second.edges[0]).toEqual({ cursor: a.id, node: { id: a.id, name: 'A' } });
    });

    it('reads one vehicle with its pricing', async () => {
      // Given a vehicle with metadata
      const v = await givenVehicle({ metadata: { fleet_no: 'T-7' } });

      // When a publishable key reads it
      const vehicle = dataOf(await publicGql(VEHICLE, { id: v.id })).vehicle;

      // Then it has the pricing in cents, per-day included miles, and UTC times
      expect(vehicle).toMatchObject({
        id: v.id, livemode: false, name: 'Toyota Corolla', status: 'active', currency: 'usd', dailyRateCents: 4900,
        depositCents: 25000, includedMiles: 200, extraMileFeeCents: 35, unlimitedMilesDailyCents: 1500, metadata: { fleet_no: 'T-7' },
      });
      expect(vehicle.createdAt).toMatch(/Z$/);
    });
  });

  describe('Query.availability', () => {
    it('leaves out a vehicle with an overlapping booking, and lists it again once that booking is canceled', async () => {
      // Given a vehicle booked for three days, and another one free
      const v = await givenVehicle();
      const other = await givenVehicle({ name: 'Free one' });
      const booked = at(200, 3);
      const booking = await givenBooking(v.id, booked);
      // ...and a search for a period overlapping the booking's second and third days
      const search = { startAt: new Date(new Date(booked.startAt).getTime() + 86_400_000).toISOString(), endAt: booked.endAt, first: 100 };

      // When the fleet is searched for that period
      const busy = dataOf(await publicGql(AVAILABILITY, search)).availability;

      // Then the vehicle is absent
      expect(busy.edges.map((e: any) => e.node.id)).not.toContain(v.id);
      expect(busy.edges.map((e: any) => e.node.id)).toContain(other.id);
      for (const edge of busy.edges) expect(edge.cursor).toBe(edge.node.id);

      // When the booking is canceled and the fleet searched again
      dataOf(await gql(CANCEL_BOOKING, { id: booking.id }));
      const free = dataOf(await publicGql(AVAILABILITY, search)).availability;

      // Then the vehicle is available again
      expect(free.edges.map((e: any) => e.node.id)).toContain(v.id);
    });
  });

  describe('Mutation.createQuote', () => {
    it('prices whole days rounded up, adds unlimited miles per day, and holds the deposit apart from the total', async () => {
      // Given a vehicle and a period of two days and one hour
      const v = await givenVehicle();
      const { startAt } = at(20, 1);
      const endAt = new Date(new Date(startAt).getTime() + 2 * 86_400_000 + 3_600_000).toISOString();

      // When a publishable key asks for a quote with unlimited miles
      const quote = dataOf(await publicGql(CREATE_QUOTE, { input: { vehicleId: v.id, startAt, endAt, unlimitedMiles: true } })).createQuote;

      // Then three days are charged: 3 × 4900 rental + 3 × 1500 unlimited miles; deposit not in the total
      expect(quote).toMatchObject({
        livemode: false, vehicleId: v.id, unlimitedMiles: true, days: 3, currency: 'usd', dailyRateCents: 4900, rentalCents: 14_700,
        unlimitedMilesFeeCents: 4500, deliveryFeeCents: 0, depositCents: 25_000, includedMiles: null, extraMileFeeCents: 35,
        totalCents: 19_200, available: true,
      });
      expect(quote.id).toMatch(/^qt_/);
      expect(new Date(quote.expiresAt).getTime()).toBeGreaterThan(Date.now());
    });

    it('includes the miles of the whole period without unlimited miles', async () => {
      // Given a vehicle with 200 miles a day
      const v = await givenVehicle();

      // When a four-day quote is made without unlimited miles
      const quote = dataOf(await gql(CREATE_QUOTE, { input: { vehicleId: v.id, ...at(30, 4) } })).createQuote;

      // Then 800 miles are included and nothing is charged for miles
      expect(quote).toMatchObject({ days: 4, rentalCents: 19_600, unlimitedMilesFeeCents: 0, includedMiles: 800, totalCents: 19_600 });
    });

    it('refuses unlimited miles on a vehicle without that price', async () => {
      // Given a vehicle that does not offer unlimited miles
      const v = await givenVehicle({ unlimitedMilesDailyCents: null });

      // When a quote with unlimited miles is asked for
      const res = await gql(CREATE_QUOTE, { input: { vehicleId: v.id, ...at(30, 2), unlimitedMiles: true } });

      // Then it is a validation error on unlimited_miles
      expectContractError(res, { type: 'validation_error', code: 'parameter_invalid', param: 'unlimited_miles' });
    });
  });

  describe('Mutation.createBooking', () => {
    it('creates a pending_payment booking with its gates, price snapshot, customer, payment and deposit', async () => {
      // Given a vehicle
      const v = await givenVehicle();

      // When a two-day booking is made for a new customer
      const booking = await givenBooking(v.id, at(40, 2), { customer: { name: 'Grace Hopper', email: 'grace@example.com' }, metadata: { crm_id: '42' } });

      // Then it waits for payment, with the default gates and the price of the period
      expect(booking).toMatchObject({
        livemode: false, state: 'pending_payment', vehicleId: v.id, quoteId: null, unlimitedMiles: false, days: 2, currency: 'usd',
        dailyRateCents: 4900, rentalCents: 9800, unlimitedMilesFeeCents: 0, depositCents: 25_000, includedMiles: 400,
        extraMileFeeCents: 35, totalCents: 9800, canceledAt: null, metadata: { crm_id: '42' },
        gates: { payment: 'pending', identity: 'pending', agreement: 'pending', deposit: 'pending', insurance: 'not_required' },
      });
      expect(booking.id).toMatch(/^bk_/);
      expect(booking.nextStates).toContain('canceled');
      expect(new Date(booking.holdExpiresAt).getTime()).toBeGreaterThan(Date.now() + 25 * 60_000);

      // When it is read back with its relations
      const read = dataOf(await gql(BOOKING, { id: booking.id })).booking;

      // Then it is the same booking, with its vehicle, customer, payment and deposit
      expect(read).toMatchObject(booking);
      expect(read.vehicle).toEqual({ id: v.id, name: 'Toyota Corolla' });
      expect(read.customer).toEqual({ id: booking.customerId, name: 'Grace Hopper' });
      expect(read.payment).toMatchObject({ bookingId: booking.id, state: 'requires_payment', amountCents: 9800, amountRefundedCents: 0, currency: 'usd' });
      expect(read.deposit).toMatchObject({ bookingId: booking.id, state: 'required', amountCents: 25_000, currency: 'usd' });
    });

    it('keeps the price of an unexpired quote even after the vehicle price changed', async () => {
      // Given a quote for three days at 4900 a day, with unlimited miles
      const v = await givenVehicle();
      const when = at(50, 3);
      const quote = dataOf(await publicGql(CREATE_QUOTE, { input: { vehicleId: v.id, ...when, unlimitedMiles: true } })).createQuote;
      // ...and the daily rate raised afterwards (no first-release operation edits a vehicle)
      await t.db.prisma.vehicle.update({ where: { id: v.id }, data: { dailyRateCents: 9900 } });

      // When the quoted period is booked with the quote
      const booking = await givenBooking(v.id, when, { quoteId: quote.id, unlimitedMiles: true });

      // Then the booking has the quote's price
      expect(booking).toMatchObject({
        quoteId: quote.id, days: 3, dailyRateCents: 4900, rentalCents: 14_700, unlimitedMilesFeeCents: 4500, includedMiles: null,
        totalCents: 19_200, depositCents: 25_000,
      });

      // ...while a booking without a quote pays today's price
      const fresh = await givenBooking(v.id, at(60, 3));
      expect(fresh).toMatchObject({ quoteId: null, dailyRateCents: 9900, rentalCents: 29_700, totalCents: 29_700 });
    });

    it('refuses a second booking overlapping the first one on the same vehicle', async () => {
      // Given a booked vehicle
      const v = await givenVehicle();
      const first = at(70, 3);
      await givenBooking(v.id, first);

      // When another booking asks for a period overlapping its last day
      const overlapping = { startAt: new Date(new Date(first.endAt).getTime() - 86_400_000).toISOString(), endAt: at(75, 1).endAt };
      const res = await gql(CREATE_BOOKING, { input: { vehicleId: v.id, ...overlapping, customer: { name: 'Late Comer' } } });

      // Then it is a conflict: the vehicle is unavailable
      expectContractError(res, { type: 'conflict', code: 'vehicle_unavailable' });
    });
  });

  describe('Mutation.cancelBooking', () => {
    it('cancels a pending booking once, then refuses a second cancel naming the state', async () => {
      // Given a pending booking
      const v = await givenVehicle();
      const booking = await givenBooking(v.id, at(80, 2));

      // When it is canceled
      const canceled = dataOf(await gql(CANCEL_BOOKING, { id: booking.id, reason: 'customer_changed_plans' })).cancelBooking;

      // Then it is canceled, with the reason, and can go nowhere else
      expect(canceled).toMatchObject({ id: booking.id, state: 'canceled', cancellationReason: 'customer_changed_plans', nextStates: [] });
      expect(canceled.canceledAt).toMatch(/Z$/);
      const payment = dataOf(await gql(BOOKING_PAYMENT, { bookingId: booking.id })).bookingPayment;
      expect(payment.state).toBe('canceled');

      // When it is canceled again
      const again = await gql(CANCEL_BOOKING, { id: booking.id });

      // Then the transition is refused, naming the current state
      const error = expectContractError(again, { type: 'conflict', code: 'invalid_state_transition' });
      expect(error.message).toContain('canceled');
    });
  });

  describe('Query.customer, bookingPayment, bookingDeposit, bookingCharges', () => {
    it('reads the customer, the payment, the deposit and the (empty) charges of a booking', async () => {
      // Given a booking made for a new customer
      const v = await givenVehicle();
      const booking = await givenBooking(v.id, at(90, 2), { customer: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+1 512 555 0100' } });

      // When its customer, payment, deposit and charges are read
      const customer = dataOf(await gql(CUSTOMER, { id: booking.customerId })).customer;
      const payment = dataOf(await gql(BOOKING_PAYMENT, { bookingId: booking.id })).bookingPayment;
      const deposit = dataOf(await gql(BOOKING_DEPOSIT, { bookingId: booking.id })).bookingDeposit;
      const charges = dataOf(await gql(BOOKING_CHARGES, { bookingId: booking.id })).bookingCharges;

      // Then each belongs to the booking, in the test environment
      expect(customer).toMatchObject({ id: booking.customerId, livemode: false, name: 'Ada Lovelace', email: 'ada@example.com', phone: '+1 512 555 0100' });
      expect(customer.id).toMatch(/^cus_/);
      expect(payment).toMatchObject({ livemode: false, bookingId: booking.id, state: 'requires_payment', amountCents: 9800, amountRefundedCents: 0, currency: 'usd' });
      expect(payment.id).toMatch(/^pay_/);
      expect(deposit).toMatchObject({ livemode: false, bookingId: booking.id, state: 'required', amountCents: 25_000, capturedCents: 0, currency: 'usd' });
      expect(deposit.id).toMatch(/^dep_/);
      expect(charges).toEqual({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } });
    });
  });

  describe('Mutation.sendMessage', () => {
    it('redacts a card number and its security code before anything is stored or answered', async () => {
      // Given a booking
      const v = await givenVehicle();
      const booking = await givenBooking(v.id, at(100, 1));

      // When a message carrying card data is sent about it
      const message = dataOf(await gql(SEND_MESSAGE, { input: { channel: 'sms', bookingId: booking.id, body: CARD_TEXT } })).sendMessage;

      // Then the answer carries the redacted body
      expect(message).toMatchObject({ livemode: false, bookingId: booking.id, channel: 'sms', direction: 'outbound', redacted: true });
      expect(message.id).toMatch(/^msg_/);
      expect(message.body).not.toContain('4242');
      expect(message.body).not.toMatch(/cvc\W*123/i);
      expect(message.body).toContain('see you at pickup');

      // ...and the database holds no message (nor event payload) with the card number or the code
      const stored = await t.db.prisma.message.findMany();
      expect(stored.map((m) => m.id)).toContain(message.id);
      for (const row of stored) {
        expect(row.body).not.toContain('4242');
        expect(row.body).not.toMatch(/cvc\W*123/i);
      }
      const events = await t.db.prisma.event.findMany({ where: { type: 'message.created' } });
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) expect(JSON.stringify(event.data)).not.toContain('4242');
    });
  });

  describe('ids that are not the caller’s', () => {
    it('answers resource_missing for unknown ids on every read', async () => {
      // Given ids that exist nowhere
      const cases: [string, Record<string, unknown>][] = [
        [VEHICLE, { id: 'veh_01nosuchvehicle0000000000' }],
        [BOOKING, { id: 'bk_01nosuchbooking0000000000' }],
        [CUSTOMER, { id: 'cus_01nosuchcustomer00000000' }],
        [BOOKING_PAYMENT, { bookingId: 'bk_01nosuchbooking0000000000' }],
        [BOOKING_DEPOSIT, { bookingId: 'bk_01nosuchbooking0000000000' }],
        [BOOKING_CHARGES, { bookingId: 'bk_01nosuchbooking0000000000' }],
        [CANCEL_BOOKING, { id: 'bk_01nosuchbooking0000000000' }],
      ];
      for (const [operation, variables] of cases) {
        // When each is asked for, Then it is missing
        expectContractError(await gql(operation, variables), { type: 'invalid_request', code: 'resource_missing' });
      }
    });

    it('answers another business’s booking exactly like an unknown id, and leaves it alone', async () => {
      // Given a booking of another business
      const theirVehicle = await givenVehicle({}, otherGql);
      const theirs = await givenBooking(theirVehicle.id, at(110, 2), {}, otherGql);

      // When our key reads it, its customer, payment, deposit, charges, or cancels it
      const attempts = [
        await gql(BOOKING, { id: theirs.id }),
        await gql(CUSTOMER, { id: theirs.customerId }),
        await gql(VEHICLE, { id: theirVehicle.id }),
        await gql(BOOKING_PAYMENT, { bookingId: theirs.id }),
        await gql(BOOKING_DEPOSIT, { bookingId: theirs.id }),
        await gql(BOOKING_CHARGES, { bookingId: theirs.id }),
        await gql(CANCEL_BOOKING, { id: theirs.id }),
        await gql(SEND_MESSAGE, { input: { channel: 'sms', bookingId: theirs.id, body: 'hello' } }),
      ];

      // Then every answer is resource_missing, and their booking is untouched
      for (const res of attempts) expectContractError(res, { type: 'invalid_request', code: 'resource_missing' });
      expect(dataOf(await otherGql(BOOKING, { id: theirs.id })).booking.state).toBe('pending_payment');
    });

    it('answers a LIVE key reading a TEST booking like an unknown id', async () => {
      // Given a booking in the sandbox
      const v = await givenVehicle();
      const booking = await givenBooking(v.id, at(120, 2));

      // When the live secret key of the same business reads it
      const res = await liveGql(BOOKING, { id: booking.id });

      // Then it does not exist in production
      expectContractError(res, { type: 'invalid_request', code: 'resource_missing' });
      expectContractError(await liveGql(VEHICLE, { id: v.id }), { type: 'invalid_request', code: 'resource_missing' });
    });
  });

  describe('keys', () => {
    it('lets a publishable key read the fleet and quote, but not read a booking', async () => {
      // Given a vehicle and a booking
      const v = await givenVehicle();
      const booking = await givenBooking(v.id, at(130, 1));

      // When the publishable key lists vehicles and makes a quote, Then it may
      expect(dataOf(await publicGql(VEHICLES, { first: 1 })).vehicles.edges).toHaveLength(1);
      expect(dataOf(await publicGql(CREATE_QUOTE, { input: { vehicleId: v.id, ...at(140, 1) } })).createQuote.totalCents).toBe(4900);

      // When it reads a booking, Then a secret key is required
      expectContractError(await publicGql(BOOKING, { id: booking.id }), { type: 'authorization_error', code: 'secret_key_required' });
      // A browser booking (the embedded components) only of a vehicle the published website shows: this one is not.
      expectContractError(await publicGql(CREATE_BOOKING, { input: { vehicleId: v.id, ...at(150, 1), customer: { name: 'X' } } }), {
        type: 'invalid_request',
        code: 'resource_missing',
      });
    });

    const authError = (body: any) => body.errors?.[0]?.extensions;

    it('answers 401 missing_api_key without an Authorization header', async () => {
      // When /graphql is called without a key
      const res = await rawGraphql(t.baseUrl, {}, '{ vehicles(first: 1) { edges { cursor } } }');

      // Then it is a 401 authentication error carrying the request id
      expect(res.status).toBe(401);
      expect(authError(res.body)).toMatchObject({ type: 'authentication_error', code: 'missing_api_key', request_id: res.headers.get('request-id') });
    });

    it('answers 401 invalid_api_key for a well-formed key nobody issued', async () => {
      // When /graphql is called with an unknown key
      const res = await rawGraphql(t.baseUrl, { authorization: `Bearer svc_test_sk_${'a'.repeat(40)}` }, '{ vehicles(first: 1) { edges { cursor } } }');

      // Then it is a 401 authentication error carrying the request id
      expect(res.status).toBe(401);
      expect(authError(res.body)).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', request_id: res.headers.get('request-id') });
    });

    // the contract: GraphQL errors carry type, code and request_id in `extensions`, auth failures too.
    it('answers authentication failures in the GraphQL response shape (errors[].extensions)', async () => {
      const missing = await rawGraphql(t.baseUrl, {}, '{ vehicles(first: 1) { edges { cursor } } }');
      const invalid = await rawGraphql(t.baseUrl, { authorization: `Bearer svc_test_sk_${'a'.repeat(40)}` }, '{ vehicles(first: 1) { edges { cursor } } }');
      for (const [res, code] of [[missing, 'missing_api_key'], [invalid, 'invalid_api_key']] as const) {
        expect(res.status).toBe(401);
        expect(res.body.errors?.[0]?.extensions).toMatchObject({ type: 'authentication_error', code, request_id: res.headers.get('request-id') });
      }
    });
  });

  describe('bad inputs', () => {
    // the contract: inputs without an offset are a validation error; no input is ever a 500.
    it('refuses a startAt without a UTC offset in variables as a validation error', async () => {
      // Given a period whose start has no offset
      const { endAt } = at(160, 1);
      const startAt = at(159, 1).startAt.replace(/\.\d{3}Z$/, ''); // e.g. 2027-01-01T10:00:00

      // When the fleet is searched for it
      const res = await publicGql(AVAILABILITY, { startAt, endAt });

      // Then it is a validation error, not an internal one
      expectContractError(res, { type: 'validation_error', code: 'parameter_invalid' });
    });

    it('refuses a wrongly typed variable (first: "abc") as a validation error', async () => {
      // When a page size that is not a number is sent in variables
      const res = await publicGql(VEHICLES, { first: 'abc' });

      // Then it is a validation error, not an internal one
      expectContractError(res, { type: 'validation_error', code: 'parameter_invalid' });
    });

    it('refuses a timestamp literal without a UTC offset as a validation error', async () => {
      const res = await publicGql('{ availability(startAt: "2030-01-01T10:00:00", endAt: "2030-01-02T10:00:00Z") { edges { cursor } } }');
      expectContractError(res, { type: 'validation_error', code: 'parameter_invalid' });
    });

    it('refuses an endAt before startAt as a validation error on end_at', async () => {
      // Given a period that ends before it starts
      const v = await givenVehicle();
      const { startAt, endAt } = at(170, 2);

      // When it is searched, quoted or booked
      const answers = [
        await publicGql(AVAILABILITY, { startAt: endAt, endAt: startAt }),
        await publicGql(CREATE_QUOTE, { input: { vehicleId: v.id, startAt: endAt, endAt: startAt } }),
        await gql(CREATE_BOOKING, { input: { vehicleId: v.id, startAt: endAt, endAt: startAt, customer: { name: 'X' } } }),
      ];

      // Then each is a validation error naming end_at
      for (const res of answers) expectContractError(res, { type: 'validation_error', code: 'parameter_invalid', param: 'end_at' });
    });

    it('refuses a page size outside 1..100 as a validation error on limit', async () => {
      // Given a booking, so that its charges can be paged
      const v = await givenVehicle();
      const booking = await givenBooking(v.id, at(180, 1));

      for (const first of [0, 101]) {
        // When a page of `first` vehicles, bookings or charges is asked for
        const answers = [
          await publicGql(VEHICLES, { first }),
          await gql(BOOKINGS_WITH_RELATIONS, { first }),
          await gql(BOOKING_CHARGES, { bookingId: booking.id, first }),
        ];

        // Then each is a validation error naming limit
        for (const res of answers) expectContractError(res, { type: 'validation_error', code: 'parameter_invalid', param: 'limit' });
      }
    });
  });

  describe('nested reads (N+1)', () => {
    it('reads a page of bookings with their vehicle and customer in a few SQL statements, however long the page', async () => {
      // Given five bookings of one vehicle, for five customers, in periods that do not overlap
      const v = await givenVehicle();
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await givenBooking(v.id, at(300 + 3 * i, 2), { customer: { name: `Customer ${i}` } })).id);
      await gql(BOOKINGS_WITH_RELATIONS, { first: 1 }); // warm caches (API key) outside the measure

      // When pages of two and of five are read with each booking's vehicle and customer
      const two = await sqlDuring(engine, () => gql(BOOKINGS_WITH_RELATIONS, { first: 2 }));
      const five = await sqlDuring(engine, () => gql(BOOKINGS_WITH_RELATIONS, { first: 5 }));

      // Then the answers are right (newest first, with relations)...
      const nodes = dataOf(five.result).bookings.edges.map((e: any) => e.node);
      expect(nodes.map((n: any) => n.id)).toEqual([...made].reverse());
      for (const [i, node] of nodes.entries()) {
        expect(node.vehicle).toEqual({ id: v.id });
        expect(node.customer.name).toBe(`Customer ${4 - i}`);
      }
      expect(dataOf(two.result).bookings.edges).toHaveLength(2);

      // ...and the statements do not grow with the page: one per level, not one per booking.
      // Only reads of the three tables count: the API key lookup is cached, and the event relay
      // and webhook worker poll their own tables in the background meanwhile.
      const dataStatements = (s: string[]) => s.filter((sql) => /"(Booking|Vehicle|Customer)"/.test(sql));
      expect(dataStatements(five.statements).length, five.statements.join('\n')).toBeLessThanOrEqual(3);
      expect(dataStatements(five.statements).length).toBe(dataStatements(two.statements).length);
    });
  });
});
