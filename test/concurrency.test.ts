import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { backendsWaitingOn } from './support/postgres.ts';
import { createBooking, createVehicle, nextPeriod } from './support/fixtures.ts';

describe('double booking is impossible (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres');
  });
  afterAll(() => t?.close());

  it('200 concurrent overlapping bookings of one vehicle: exactly one 201, the rest 409 vehicle_unavailable', async () => {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    const vehicle = await createVehicle(api);
    const base = nextPeriod(10);
    const start = new Date(base.start_at).getTime();
    // Every request overlaps every other: all share the middle of the period.
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        api.post('/v1/bookings', {
          vehicle_id: vehicle.id,
          start_at: new Date(start + (i % 24) * 3_600_000).toISOString(),
          end_at: new Date(start + (5 + (i % 4)) * 86_400_000).toISOString(),
          customer: { name: `Racer ${i}` },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.error.code === 'vehicle_unavailable')).toHaveLength(199);

    const overlapping = await t.db.prisma.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM "Booking" a JOIN "Booking" b
        ON a."vehicleId" = b."vehicleId" AND a.id < b.id
       AND tstzrange(a."startAt", a."endAt") && tstzrange(b."startAt", b."endAt")
     WHERE a.state NOT IN ('canceled', 'refunded') AND b.state NOT IN ('canceled', 'refunded')`;
    expect(Number(overlapping[0].n)).toBe(0);
    expect(await t.db.prisma.booking.count({ where: { vehicleId: vehicle.id } })).toBe(1);
  });

  // Every state change of a booking writes its period again, which the exclusion constraint
  // checks; a create that overlaps it and waited on that uncommitted change could be waited on
  // in turn: a cycle PostgreSQL breaks only after a second. Here the change stays uncommitted
  // while the create runs; the create must not wait on it.
  type Overlapping = (booking: Record<string, any>, other: Record<string, any>) => { path: string; body: object };
  it.each<[string, Overlapping]>([
    ['a create of an overlapping booking', (booking) => ({ path: '/v1/bookings', body: { vehicle_id: booking.vehicle_id, start_at: booking.start_at, end_at: booking.end_at, customer: { name: 'Second Comer' } } })],
    ['a period change of another booking onto it', (booking, other) => ({ path: `/v1/bookings/${other.id}`, body: { start_at: booking.start_at, end_at: booking.end_at } })],
  ])('%s while the booking changes state in an uncommitted transaction: 409 vehicle_unavailable at once, without waiting on that transaction', async (_, request) => {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id);
    const other = await createBooking(api, vehicle.id);
    const rival = await t.db.pool!.connect();
    try {
      await rival.query('BEGIN');
      const { rows } = await rival.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // What a checkout does to the row, left uncommitted.
      await rival.query(`UPDATE "Booking" SET state = 'checkout_started', "updatedAt" = now() WHERE id = $1`, [booking.id]);
      const { path, body } = request(booking, other);
      let answered = false;
      const answer = api.post(path, body).finally(() => (answered = true));
      let waitedOnRival = false;
      while (!answered && !waitedOnRival) {
        waitedOnRival = (await backendsWaitingOn(t.db.pool!, rows[0].pid)).length > 0;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(waitedOnRival, 'the request waited on the uncommitted state change').toBe(false);
      const res = await answer;
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error.code).toBe('vehicle_unavailable');
    } finally {
      await rival.query('ROLLBACK').catch(() => {});
      rival.release();
    }
    expect((await api.get(`/v1/bookings/${other.id}`)).body).toMatchObject({ start_at: other.start_at, end_at: other.end_at });
    expect(await t.db.prisma.booking.count({ where: { vehicleId: vehicle.id } })).toBe(2);
  });
});

describe.each(ENGINES)('keyset pagination on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t?.close());

  it('walking GET /v1/bookings page by page while bookings are created returns each earlier booking exactly once', async () => {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    const vehicles = await Promise.all(Array.from({ length: 3 }, () => createVehicle(api)));
    const existing: string[] = [];
    for (let i = 0; i < 25; i++) existing.push((await createBooking(api, vehicles[i % 3].id)).id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    let writer = 0;
    do {
      const page: any = await api.get(`/v1/bookings?limit=4${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((b: any) => b.id));
      cursor = page.body.has_more ? page.body.data.at(-1).id : null;
      pages++;
      // New bookings arrive between pages.
      await createBooking(api, vehicles[writer++ % 3].id);
    } while (cursor && pages < 50);

    const seenExisting = seen.filter((id) => existing.includes(id));
    expect(seenExisting.sort()).toEqual([...existing].sort());
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('walks backwards with ending_before', async () => {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    const all = (await api.get('/v1/bookings?limit=100')).body.data.map((b: any) => b.id);
    const page = await api.get(`/v1/bookings?limit=3&ending_before=${all[5]}`);
    expect(page.body.data.map((b: any) => b.id)).toEqual(all.slice(2, 5));
    expect(page.body.has_more).toBe(true);
  });
});
