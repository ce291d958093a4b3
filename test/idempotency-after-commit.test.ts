// A request under an Idempotency-Key whose change committed, and which then failed on our
// side before answering: the database connection was lost while the answer was being read
// (found by `npm run chaos`, a PostgreSQL restart in that window: the retry created a second
// charge). The client got a 503 and retries with the same key, as it is told to; the retry
// must answer what the first run made, not make it again.
//
// The fault is PostgreSQL's own, made deterministic: the test's transaction holds the
// evidence table locked, so the read of the new charge's evidence (after the commit) waits;
// the test then terminates that waiting backend, and the request answers 503
// database_unavailable. PostgreSQL only (PGlite has one connection, which nothing terminates).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { backendsWaitingOn } from './support/postgres.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a request that failed after its change committed: the retry answers that change (PostgreSQL)', () => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  beforeAll(async () => {
    t = await startTestApp('postgres');
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(() => t?.close());

  async function activeBooking() {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure', 'pickup']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    return booking;
  }

  /** Run `request` while the evidence table is locked; the backend that waits on it (the answer's read) loses its connection. */
  async function connectionLostReadingTheAnswer<T>(request: () => Promise<T>): Promise<T> {
    const rival = await t.db.pool!.connect();
    try {
      await rival.query('BEGIN');
      await rival.query('LOCK TABLE "Evidence" IN ACCESS EXCLUSIVE MODE');
      const { rows } = await rival.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const answer = request();
      const deadline = Date.now() + 30_000;
      let waiting: number[] = [];
      while ((waiting = await backendsWaitingOn(t.db.pool!, rows[0].pid)).length === 0) {
        if (Date.now() > deadline) throw new Error('no request waited on the locked evidence table');
        await sleep(5);
      }
      await t.db.pool!.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [waiting]);
      await rival.query('ROLLBACK');
      return await answer;
    } finally {
      rival.release();
    }
  }

  const chargesOf = (bookingId: string) => t.db.prisma.charge.findMany({ where: { bookingId }, select: { id: true } });
  const createdEvents = (chargeId: string) => t.db.prisma.event.count({ where: { type: 'charge.created', data: { path: ['object', 'id'], equals: chargeId } } });

  it('POST /v1/bookings/{id}/charges: 503 database_unavailable, then the retry answers 201 with the charge the first run made; one charge, one charge.created', async () => {
    const booking = await activeBooking();
    const body = { type: 'damage', amount_cents: 3400, description: 'Scratch on the rear door' };
    const idem = { 'Idempotency-Key': `charge-after-commit-${booking.id}` };

    const first = await connectionLostReadingTheAnswer(() => api.post(`/v1/bookings/${booking.id}/charges`, body, idem));
    expect(first.status, JSON.stringify(first.body)).toBe(503);
    expect(first.body.error.code).toBe('database_unavailable');
    const made = await chargesOf(booking.id);
    expect(made).toHaveLength(1); // the change had committed

    const retry = await api.post(`/v1/bookings/${booking.id}/charges`, body, idem);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toMatchObject({ id: made[0].id, object: 'charge', state: 'pending', amount_cents: 3400 });
    expect(await chargesOf(booking.id)).toEqual(made);
    expect(await createdEvents(made[0].id)).toBe(1);
    // From then on, the stored answer.
    const again = await api.post(`/v1/bookings/${booking.id}/charges`, body, idem);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(retry.body);
  });

  it('mutation createCharge: an error, then the retry answers the charge the first run made; one charge', async () => {
    const booking = await activeBooking();
    const query = 'mutation Charge($bookingId: ID!, $input: CreateChargeInput!) { createCharge(bookingId: $bookingId, input: $input) { id state amountCents evidence { fileId } } }';
    const variables = { bookingId: booking.id, input: { type: 'fuel', amountCents: 1800, description: 'Tank a quarter full' } };
    const idem = { 'Idempotency-Key': `charge-after-commit-graphql-${booking.id}` };

    const first = await connectionLostReadingTheAnswer(() => gql(query, variables, idem));
    expect(first.errors?.[0]?.extensions).toMatchObject({ code: 'database_unavailable' });
    const made = await chargesOf(booking.id);
    expect(made).toHaveLength(1);

    const retry = await gql(query, variables, idem);
    expect(retry.errors).toBeUndefined();
    expect(retry.data.createCharge).toEqual({ id: made[0].id, state: 'pending', amountCents: 1800, evidence: [] });
    expect(await chargesOf(booking.id)).toEqual(made);
    expect(await createdEvents(made[0].id)).toBe(1);
  });
});
