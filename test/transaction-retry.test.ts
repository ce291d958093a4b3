// A transaction PostgreSQL aborts for a concurrent one (a deadlock, 40P01; a serialization
// failure, 40001) is run again inside the service, a bounded number of times; after that the
// caller gets 503 transaction_conflict with Retry-After, never a 500.
//
// The deadlock is PostgreSQL's own, on the booking exclusion constraint, and made
// deterministic: the test's transaction holds an uncommitted booking overlapping the start of
// the request's period, so the request's insert waits for it while checking the constraint;
// then the test inserts a booking overlapping the request's end, which waits for the request:
// a cycle. The request's backend detects it first (deadlock_timeout 1 s; the test's session
// waits 30 s) and PostgreSQL aborts the request's transaction with 40P01. PostgreSQL only:
// PGlite is one connection and never deadlocks.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSACTION_ATTEMPTS } from '../src/db/transaction-retry.ts';
import { restClient, startTestApp, type TestApp } from './support/app.ts';
import { backendsWaitingOn } from './support/postgres.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

const DAY = 86_400_000;

describe('deadlocks and serialization failures are retried, then answered 503 (PostgreSQL)', () => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  beforeAll(async () => {
    t = await startTestApp('postgres');
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(() => t?.close());

  /** Days from a whole hour 200 days ahead: the request books [1, 3), the test's rows [0, 2) and [2, 4). */
  const day = (n: number) => {
    const base = new Date(Date.now() + 200 * DAY);
    base.setUTCMinutes(0, 0, 0);
    return new Date(base.getTime() + n * DAY);
  };

  /** A transaction of the test's own, holding uncommitted bookings of `vehicleId` (copies of `template`). */
  async function rivalTransaction(template: string) {
    const client = await t.db.pool!.connect();
    await client.query('BEGIN');
    // The request's backend, not this one, is the one to find the cycle and be aborted.
    await client.query("SET LOCAL deadlock_timeout = '30s'");
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    let ended = false;
    return {
      client,
      pid: rows[0].pid,
      /** Insert a booking for [from, to); waits while it overlaps a booking being inserted by another transaction. */
      book: (id: string, from: Date, to: Date) =>
        client.query(
          `INSERT INTO "Booking" SELECT (jsonb_populate_record(NULL::"Booking", to_jsonb(b) || jsonb_build_object('id', $2::text, 'startAt', $3::text, 'endAt', $4::text))).* FROM "Booking" b WHERE b.id = $1`,
          [template, id, from.toISOString().replace('Z', ''), to.toISOString().replace('Z', '')],
        ),
      async end() {
        if (ended) return;
        ended = true;
        await client.query('ROLLBACK').catch(() => {});
        client.release(true); // its session settings go with it
      },
    };
  }

  /** Wait until a backend waits on `pid`'s transaction: true, or false once `stop()` says to. */
  async function blockedOn(pid: number, stop: () => boolean): Promise<boolean> {
    const deadline = Date.now() + 30_000;
    while (!stop()) {
      if ((await backendsWaitingOn(t.db.pool!, pid)).length > 0) return true;
      if (Date.now() > deadline) throw new Error('no request waited on the test transaction');
      await sleep(10);
    }
    return false;
  }

  /** GET /metrics: the transactions PostgreSQL aborted for a concurrent one, of this cause. */
  async function aborted(cause: 'deadlock' | 'serialization_failure') {
    const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
    return Number(new RegExp(`^database_transactions_aborted_total\\{cause="${cause}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  }

  function settling<T>(promise: Promise<T>) {
    const state = { settled: false };
    void promise.finally(() => (state.settled = true));
    return state;
  }

  it('a booking create aborted by a deadlock on the exclusion constraint is run again and answers 201, with one booking, one event and a true audit record', async () => {
    const vehicle = await createVehicle(api);
    const template = (await createBooking(api, vehicle.id, { start_at: day(100).toISOString(), end_at: day(101).toISOString() })).id;
    const rival = await rivalTransaction(template);
    const deadlocksBefore = await aborted('deadlock');
    try {
      await rival.book('bk_rival_start', day(0), day(2));
      const answer = api.post('/v1/bookings', { vehicle_id: vehicle.id, start_at: day(1).toISOString(), end_at: day(3).toISOString(), customer: { name: 'Grace Hopper' } });
      const state = settling(answer);

      // The request waits on the rival's booking; the rival's second one closes the cycle.
      expect(await blockedOn(rival.pid, () => state.settled)).toBe(true);
      await rival.book('bk_rival_end', day(2), day(4)); // returns once PostgreSQL has aborted the request's transaction
      // The request's transaction runs again, and waits on the rival again.
      const retried = await blockedOn(rival.pid, () => state.settled);
      await rival.end(); // the rival gives way: its bookings were never committed
      const res = await answer;

      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(retried).toBe(true);
      // The operator sees it: one transaction aborted by a deadlock.
      expect(await aborted('deadlock')).toBe(deadlocksBefore + 1);
      const bookings = await t.db.prisma.booking.findMany({ where: { vehicleId: vehicle.id }, orderBy: { startAt: 'asc' } });
      expect(bookings.map((b) => b.id)).toEqual([res.body.id, template]);
      expect(await t.db.prisma.event.count({ where: { type: 'booking.created', bookingId: res.body.id } })).toBe(1);
      // The first attempt's customer was rolled back with it: one Grace Hopper.
      expect(await t.db.prisma.customer.count({ where: { businessId: t.business.business_id, name: 'Grace Hopper' } })).toBe(1);
      // The audit record names what committed, not the rows of the attempt that was rolled back.
      const audit = await t.db.prisma.auditLog.findFirstOrThrow({ where: { requestId: res.headers.get('request-id')! } });
      expect(audit).toMatchObject({ status: 201, bookingId: res.body.id });
      const named = audit.objects.filter((id) => id.startsWith('bk_') || id.startsWith('cus_'));
      expect(named.sort()).toEqual([res.body.id, res.body.customer_id].sort());
    } finally {
      await rival.end();
    }
  });

  it(`a create that deadlocks on each of its ${TRANSACTION_ATTEMPTS} attempts answers 503 transaction_conflict with Retry-After, and changes nothing`, async () => {
    const vehicle = await createVehicle(api);
    const template = (await createBooking(api, vehicle.id, { start_at: day(100).toISOString(), end_at: day(101).toISOString() })).id;
    const customersBefore = await t.db.prisma.customer.count();
    const rival = await rivalTransaction(template);
    const deadlocksBefore = await aborted('deadlock');
    let rounds = 0;
    try {
      await rival.book('bk_rival_start', day(0), day(2));
      const answer = api.post('/v1/bookings', { vehicle_id: vehicle.id, start_at: day(1).toISOString(), end_at: day(3).toISOString(), customer: { name: 'Alan Turing' } });
      const state = settling(answer);
      // Each time the request waits on the rival, the rival closes a cycle, then takes back
      // (to a savepoint) what closed it, keeping the booking the request waits for.
      while (await blockedOn(rival.pid, () => state.settled)) {
        await rival.client.query('SAVEPOINT round');
        await rival.book(`bk_rival_end_${rounds}`, day(2), day(4));
        await rival.client.query('ROLLBACK TO SAVEPOINT round');
        rounds++;
      }
      const res = await answer;

      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'internal_error', code: 'transaction_conflict', request_id: res.headers.get('request-id') });
      expect(res.headers.get('retry-after')).toBe('1');
      expect(rounds).toBe(TRANSACTION_ATTEMPTS);
      expect(await aborted('deadlock')).toBe(deadlocksBefore + TRANSACTION_ATTEMPTS);
      expect(await aborted('serialization_failure')).toBe(0);
    } finally {
      await rival.end();
    }
    expect(await t.db.prisma.booking.findMany({ where: { vehicleId: vehicle.id }, select: { id: true } })).toEqual([{ id: template }]);
    expect(await t.db.prisma.customer.count()).toBe(customersBefore);

    // Nothing is left locked or broken: the same request now succeeds.
    const again = await api.post('/v1/bookings', { vehicle_id: vehicle.id, start_at: day(1).toISOString(), end_at: day(3).toISOString(), customer: { name: 'Alan Turing' } });
    expect(again.status).toBe(201);
  });
});
