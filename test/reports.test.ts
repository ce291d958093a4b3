import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createVehicle } from './support/fixtures.ts';
import { ROLE_PERMISSIONS } from '../src/domain/access/permissions.ts';
import { createApiKey } from '../src/platform/api-keys.ts';
import { createBusiness } from '../src/platform/businesses.ts';

/*
 * The reports over REST (JSON and CSV) and GraphQL, on both engines, against figures worked
 * out by hand. The data is made through the public API and the sandbox; then, because the
 * database stamps every row with its own clock, each row is placed at a fixed moment of
 * March 2025 (a timeline written out below), so the expected numbers are literals.
 *
 * Vehicles V1, V2 exist from 2025-03-01 (V3 was in the fleet in February only, archived Feb 28). Every booking's vehicle rents at
 * 4,900 a day with a 25,000 deposit, 200 miles a day included, 35 cents a mile beyond.
 *   B1 (V1, 2 days, Mar 5 10:00 → Mar 7 10:00): created Mar 3 09:00, paid 9,800 Mar 3 09:05;
 *      returned 500 miles over: mileage charge 17,500 collected by card Mar 7 12:00; a damage
 *      charge 8,000 taken from the deposit Mar 8 08:00; completed.
 *   B2 (V2, 3 days, Mar 9 00:00 → Mar 12 00:00): created Mar 4 15:00, paid 14,700 Mar 4 15:10;
 *      2,500 refunded Mar 10 11:00 (still confirmed).
 *   B3 (V1, 2 days): created Mar 10 08:00, never paid, canceled.
 *   B5 (V2, 2 days, Mar 25 → Mar 27): created Mar 11 10:00, paid 9,800 Mar 11 10:05, canceled
 *      and refunded in full Mar 12 09:00.
 *   B4 (V1, 3 days, Mar 30 12:00 → Apr 2 12:00): created Mar 17 12:00, paid 14,700 Mar 17 12:30;
 *      returned 500 miles over (mileage charge 17,500, disputed Mar 18 10:00, approved Mar 24
 *      10:00: waived); cleaning 3,000 collected Mar 18 11:00, disputed Mar 19 10:00, approved
 *      Mar 25 10:00 (refunded then); fuel 1,200 disputed Mar 19 11:00, closed Mar 26 10:00.
 *   B6 (V2): created, paid, extended and canceled in February; its extension's refund is placed
 *      on Mar 13 and counts nowhere (extensions are not in the revenue report).
 * Another business's paid booking and the live environment's vehicle, booking and payment sit
 * in the same days and must count nowhere.
 */

const at = (iso: string) => new Date(iso);
const FROM = '2025-03-01T00:00:00Z';
const TO = '2025-04-01T00:00:00Z';

/** Every row of a report over its buckets: the figures given, zero (or null) elsewhere. */
function rowsOver(buckets: [string, string][], zero: Record<string, number | null>, given: Record<string, Record<string, number | null>>) {
  return buckets.map(([start, end]) => ({ period_start: start, period_end: end, ...zero, ...(given[start] ?? {}) }));
}

const iso = (d: string) => new Date(d).toISOString();
const DAYS: [string, string][] = Array.from({ length: 31 }, (_, i) => [iso(`2025-03-${String(i + 1).padStart(2, '0')}T00:00:00Z`), new Date(Date.UTC(2025, 2, i + 2)).toISOString()]);
const WEEKS: [string, string][] = [
  ['2025-03-01', '2025-03-03'], ['2025-03-03', '2025-03-10'], ['2025-03-10', '2025-03-17'], ['2025-03-17', '2025-03-24'], ['2025-03-24', '2025-03-31'], ['2025-03-31', '2025-04-01'],
].map(([a, b]) => [iso(`${a}T00:00:00Z`), iso(`${b}T00:00:00Z`)]);
const MONTHS: [string, string][] = [[iso(FROM), iso(TO)]];
const BUCKETS = { day: DAYS, week: WEEKS, month: MONTHS } as const;
const d = (day: number) => iso(`2025-03-${String(day).padStart(2, '0')}T00:00:00Z`);

const REVENUE_ZERO = {
  gross_cents: 0, refunds_cents: 0, net_cents: 0, payments_cents: 0, charges_cents: 0, deposit_captures_cents: 0,
  charges_mileage_cents: 0, charges_damage_cents: 0, charges_fuel_cents: 0, charges_late_return_cents: 0, charges_cleaning_cents: 0, charges_toll_cents: 0, charges_other_cents: 0,
};
const BOOKINGS_ZERO = { created: 0, paid: 0, canceled: 0, completed: 0, average_rental_days: null, booking_value_cents: 0 };
const DISPUTES_ZERO = { opened: 0, approved: 0, closed: 0, disputed_cents: 0, approved_cents: 0 };

const EXPECTED = {
  revenue: {
    totals: { ...REVENUE_ZERO, gross_cents: 77500, refunds_cents: 15300, net_cents: 62200, payments_cents: 49000, charges_cents: 20500, deposit_captures_cents: 8000, charges_mileage_cents: 17500, charges_damage_cents: 8000, charges_cleaning_cents: 3000 },
    day: {
      [d(3)]: { gross_cents: 9800, net_cents: 9800, payments_cents: 9800 },
      [d(4)]: { gross_cents: 14700, net_cents: 14700, payments_cents: 14700 },
      [d(7)]: { gross_cents: 17500, net_cents: 17500, charges_cents: 17500, charges_mileage_cents: 17500 },
      [d(8)]: { gross_cents: 8000, net_cents: 8000, deposit_captures_cents: 8000, charges_damage_cents: 8000 },
      [d(10)]: { refunds_cents: 2500, net_cents: -2500 },
      [d(11)]: { gross_cents: 9800, net_cents: 9800, payments_cents: 9800 },
      [d(12)]: { refunds_cents: 9800, net_cents: -9800 },
      [d(17)]: { gross_cents: 14700, net_cents: 14700, payments_cents: 14700 },
      [d(18)]: { gross_cents: 3000, net_cents: 3000, charges_cents: 3000, charges_cleaning_cents: 3000 },
      [d(25)]: { refunds_cents: 3000, net_cents: -3000 },
    },
    week: {
      [d(3)]: { gross_cents: 50000, net_cents: 50000, payments_cents: 24500, charges_cents: 17500, deposit_captures_cents: 8000, charges_mileage_cents: 17500, charges_damage_cents: 8000 },
      [d(10)]: { gross_cents: 9800, refunds_cents: 12300, net_cents: -2500, payments_cents: 9800 },
      [d(17)]: { gross_cents: 17700, net_cents: 17700, payments_cents: 14700, charges_cents: 3000, charges_cleaning_cents: 3000 },
      [d(24)]: { refunds_cents: 3000, net_cents: -3000 },
    },
  },
  bookings: {
    totals: { created: 5, paid: 4, canceled: 2, completed: 1, average_rental_days: 2.5, booking_value_cents: 49000 },
    day: {
      [d(3)]: { created: 1, paid: 1, completed: 1, average_rental_days: 2, booking_value_cents: 9800 },
      [d(4)]: { created: 1, paid: 1, average_rental_days: 3, booking_value_cents: 14700 },
      [d(10)]: { created: 1, canceled: 1 },
      [d(11)]: { created: 1, paid: 1, canceled: 1, average_rental_days: 2, booking_value_cents: 9800 },
      [d(17)]: { created: 1, paid: 1, average_rental_days: 3, booking_value_cents: 14700 },
    },
    week: {
      [d(3)]: { created: 2, paid: 2, completed: 1, average_rental_days: 2.5, booking_value_cents: 24500 },
      [d(10)]: { created: 2, paid: 1, canceled: 2, average_rental_days: 2, booking_value_cents: 9800 },
      [d(17)]: { created: 1, paid: 1, average_rental_days: 3, booking_value_cents: 14700 },
    },
  },
  utilization: {
    // Two vehicles all month: 31 × 48 hours; booked 48 (B1) + 72 (B2) + 36 (B4 up to Apr 1).
    totals: { vehicles: 2, available_vehicle_hours: 1488, booked_vehicle_hours: 156, utilization: 0.1048 },
    day: {
      [d(5)]: { booked_vehicle_hours: 14, utilization: 0.2917 },
      [d(6)]: { booked_vehicle_hours: 24, utilization: 0.5 },
      [d(7)]: { booked_vehicle_hours: 10, utilization: 0.2083 },
      [d(9)]: { booked_vehicle_hours: 24, utilization: 0.5 },
      [d(10)]: { booked_vehicle_hours: 24, utilization: 0.5 },
      [d(11)]: { booked_vehicle_hours: 24, utilization: 0.5 },
      [d(30)]: { booked_vehicle_hours: 12, utilization: 0.25 },
      [d(31)]: { booked_vehicle_hours: 24, utilization: 0.5 },
    },
    week: {
      [d(1)]: { available_vehicle_hours: 96 },
      [d(3)]: { available_vehicle_hours: 336, booked_vehicle_hours: 72, utilization: 0.2143 },
      [d(10)]: { available_vehicle_hours: 336, booked_vehicle_hours: 48, utilization: 0.1429 },
      [d(17)]: { available_vehicle_hours: 336 },
      [d(24)]: { available_vehicle_hours: 336, booked_vehicle_hours: 12, utilization: 0.0357 },
      [d(31)]: { available_vehicle_hours: 48, booked_vehicle_hours: 24, utilization: 0.5 },
    },
  },
  disputes: {
    totals: { opened: 3, approved: 2, closed: 1, disputed_cents: 21700, approved_cents: 20500 },
    day: {
      [d(18)]: { opened: 1, disputed_cents: 17500 },
      [d(19)]: { opened: 2, disputed_cents: 4200 },
      [d(24)]: { approved: 1, approved_cents: 17500 },
      [d(25)]: { approved: 1, approved_cents: 3000 },
      [d(26)]: { closed: 1 },
    },
    week: {
      [d(17)]: { opened: 3, disputed_cents: 21700 },
      [d(24)]: { approved: 2, closed: 1, approved_cents: 20500 },
    },
  },
} as const;

const ZERO = {
  revenue: REVENUE_ZERO,
  bookings: BOOKINGS_ZERO,
  utilization: { vehicles: 2, available_vehicle_hours: 48, booked_vehicle_hours: 0, utilization: 0 },
  disputes: DISPUTES_ZERO,
} as const;

type ReportType = keyof typeof EXPECTED;
type Grouping = keyof typeof BUCKETS;

/** The whole expected report of a type and grouping. */
function expectedReport(type: ReportType, groupBy: Grouping) {
  const e = EXPECTED[type];
  let rows;
  if (groupBy === 'month') rows = [{ period_start: iso(FROM), period_end: iso(TO), ...e.totals }];
  else {
    const zero: Record<string, number | null> = { ...ZERO[type] };
    rows = rowsOver(BUCKETS[groupBy], zero, e[groupBy] as Record<string, Record<string, number | null>>);
  }
  return { object: 'report', type, from: iso(FROM), to: iso(TO), group_by: groupBy, timezone: 'UTC', currency: 'usd', rows, totals: e.totals };
}

/** A report as CSV, from its JSON: the header, then a line per bucket, CRLF. */
function csvOf(report: ReturnType<typeof expectedReport>) {
  const columns = Object.keys(report.rows[0]);
  return [columns.join(','), ...report.rows.map((r) => columns.map((c) => String((r as Record<string, unknown>)[c] ?? '')).join(','))].join('\r\n') + '\r\n';
}

const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

describe.each(ENGINES)('reports on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;

  const ok = async (res: Promise<{ status: number; body: any }>, status = 200) => {
    const answer = await res;
    if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  let vehicleIds: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    await seed();
  }, 120_000);
  afterAll(async () => t?.close());

  /** Moves a row to its moment of the timeline. */
  async function place(table: string, id: string, column: string, when: string) {
    const n = await t.db.prisma.$executeRawUnsafe(`UPDATE "${table}" SET "${column}" = $1 WHERE "id" = $2`, at(when), id);
    if (n !== 1) throw new Error(`${table} ${id} not placed`);
  }
  async function placeTransaction(bookingId: string, type: string, when: string, chargeId?: string) {
    const row = await t.db.prisma.transaction.findFirst({ where: { bookingId, type: type as never, status: 'succeeded', ...(chargeId ? { chargeId } : {}) } });
    if (!row) throw new Error(`no ${type} transaction on ${bookingId}`);
    await place('Transaction', row.id, 'createdAt', when);
  }
  async function placeBooking(id: string, created: string, start: string, end: string) {
    await place('Booking', id, 'createdAt', created);
    await place('Booking', id, 'startAt', start);
    await place('Booking', id, 'endAt', end);
  }
  async function placeDecision(disputeId: string, type: string, when: string) {
    const events = await t.db.prisma.event.findMany({ where: { type } });
    const event = events.find((e) => (e.data as { object: { id: string } }).object.id === disputeId);
    if (!event) throw new Error(`no ${type} for ${disputeId}`);
    await place('Event', event.id, 'createdAt', when);
  }

  const soon = (days: number, hours = 1) => {
    const start = new Date(Math.ceil((Date.now() + hours * 3_600_000) / 60_000) * 60_000);
    return { start_at: start.toISOString(), end_at: new Date(start.getTime() + days * 86_400_000).toISOString() };
  };
  const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };

  /** A paid sandbox booking taken through pickup and a return 500 miles over: its mileage charge. */
  async function returnedOverMiles(client: ReturnType<typeof restClient>, vehicleId: string, days: number) {
    const { id } = await ok(client.post('/v1/test/bookings', { vehicle_id: vehicleId, customer, ...soon(days) }), 201);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure']) await ok(client.post(`/v1/test/bookings/${id}/${step}`));
    await ok(client.post(`/v1/test/bookings/${id}/pickup`, { mileage_out: 1000 }));
    const returned = await ok(client.post(`/v1/test/bookings/${id}/return`, { mileage_in: 1000 + days * 200 + 500 }));
    return { id: id as string, mileageCharge: returned.charge_ids[0] as string };
  }

  async function seed() {
    const v1 = await createVehicle(api);
    const v2 = await createVehicle(api);
    const v3 = await createVehicle(api);
    for (const v of [v1, v2]) await place('Vehicle', v.id, 'createdAt', '2025-03-01T00:00:00Z');
    // V3 left the fleet before March: it must count nowhere in it.
    await ok(api.call('DELETE', `/v1/vehicles/${v3.id}`));
    await place('Vehicle', v3.id, 'createdAt', '2025-02-01T00:00:00Z');
    await place('Vehicle', v3.id, 'archivedAt', '2025-02-28T00:00:00Z');
    vehicleIds = [v1.id, v2.id];

    // B1: paid, mileage collected by card, damage taken from the deposit, completed.
    const b1 = await returnedOverMiles(api, v1.id, 2);
    expect((await ok(api.get(`/v1/bookings/${b1.id}`))).total_cents).toBe(9800);
    await ok(api.post(`/v1/test/charges/${b1.mileageCharge}/succeed`));
    const damage = await ok(api.post(`/v1/bookings/${b1.id}/charges`, { type: 'damage', amount_cents: 8000, description: 'bumper scratch' }), 201);
    await ok(api.post(`/v1/bookings/${b1.id}/return/complete`));
    await ok(api.post(`/v1/bookings/${b1.id}/deposit/capture`, { amount_cents: 8000, charge_id: damage.id, reason: 'bumper scratch' }));
    expect((await ok(api.get(`/v1/bookings/${b1.id}`))).state).toBe('completed');
    await placeBooking(b1.id, '2025-03-03T09:00:00Z', '2025-03-05T10:00:00Z', '2025-03-07T10:00:00Z');
    await placeTransaction(b1.id, 'payment', '2025-03-03T09:05:00Z');
    await placeTransaction(b1.id, 'deposit_hold', '2025-03-03T09:10:00Z');
    await placeTransaction(b1.id, 'charge', '2025-03-07T12:00:00Z', b1.mileageCharge);
    await placeTransaction(b1.id, 'deposit_capture', '2025-03-08T08:00:00Z', damage.id);
    await placeTransaction(b1.id, 'deposit_release', '2025-03-08T08:00:00Z');

    // B2: paid, 2,500 refunded, still confirmed.
    const b2 = (await ok(api.post('/v1/test/bookings', { vehicle_id: v2.id, customer, ...soon(3, 30 * 24) }), 201)).id as string;
    await ok(api.post(`/v1/test/bookings/${b2}/payment/succeed`));
    expect(await ok(api.post(`/v1/bookings/${b2}/refund`, { amount_cents: 2500, reason: 'goodwill' }))).toMatchObject({ amount_cents: 14700, amount_refunded_cents: 2500 });
    await placeBooking(b2, '2025-03-04T15:00:00Z', '2025-03-09T00:00:00Z', '2025-03-12T00:00:00Z');
    await placeTransaction(b2, 'payment', '2025-03-04T15:10:00Z');
    await placeTransaction(b2, 'refund', '2025-03-10T11:00:00Z');

    // B3: never paid, canceled.
    const b3 = (await ok(api.post('/v1/test/bookings', { vehicle_id: v1.id, customer, ...soon(2, 40 * 24) }), 201)).id as string;
    expect(await ok(api.post(`/v1/bookings/${b3}/cancel`))).toMatchObject({ state: 'canceled' });
    await placeBooking(b3, '2025-03-10T08:00:00Z', '2025-03-20T00:00:00Z', '2025-03-22T00:00:00Z');

    // B5: paid, then canceled more than a day ahead: refunded in full.
    const b5 = (await ok(api.post('/v1/test/bookings', { vehicle_id: v2.id, customer, ...soon(2, 50 * 24) }), 201)).id as string;
    await ok(api.post(`/v1/test/bookings/${b5}/payment/succeed`));
    await ok(api.post(`/v1/bookings/${b5}/cancel`));
    expect(await ok(api.get(`/v1/bookings/${b5}`))).toMatchObject({ state: 'refunded', total_cents: 9800 });
    await placeBooking(b5, '2025-03-11T10:00:00Z', '2025-03-25T00:00:00Z', '2025-03-27T00:00:00Z');
    await placeTransaction(b5, 'payment', '2025-03-11T10:05:00Z');
    await placeTransaction(b5, 'refund', '2025-03-12T09:00:00Z');

    // B6: paid, extended a day, canceled and refunded in full (the payment and the extension's
    // charge), all in February but the extension's refund, placed in March: extensions count
    // nowhere in the revenue report, and neither do refunds of them.
    const b6 = (await ok(api.post('/v1/test/bookings', { vehicle_id: v2.id, customer, ...soon(2, 60 * 24) }), 201)).id as string;
    await ok(api.post(`/v1/test/bookings/${b6}/payment/succeed`));
    const b6End = (await ok(api.get(`/v1/bookings/${b6}`))).end_at as string;
    await ok(api.post(`/v1/bookings/${b6}/extend`, { end_at: new Date(new Date(b6End).getTime() + 86_400_000).toISOString() }));
    expect(await ok(api.post(`/v1/bookings/${b6}/cancel`))).toMatchObject({ state: 'refunded' });
    const b6Refunds = await t.db.prisma.transaction.findMany({ where: { bookingId: b6, type: 'refund', status: 'succeeded' } });
    expect(b6Refunds.map((r) => r.refundedTransactionId === null).sort()).toEqual([false, true]);
    await placeBooking(b6, '2025-02-10T10:00:00Z', '2025-02-20T00:00:00Z', '2025-02-23T00:00:00Z');
    await placeTransaction(b6, 'payment', '2025-02-10T10:05:00Z');
    await placeTransaction(b6, 'extension', '2025-02-11T10:00:00Z');
    for (const refund of b6Refunds) await place('Transaction', refund.id, 'createdAt', refund.refundedTransactionId ? '2025-03-13T09:00:00Z' : '2025-02-12T09:00:00Z');

    // B4: paid; three disputed charges, two approved (one of them collected first), one closed.
    const b4 = await returnedOverMiles(api, v1.id, 3);
    const cleaning = await ok(api.post(`/v1/bookings/${b4.id}/charges`, { type: 'cleaning', amount_cents: 3000, description: 'interior cleaning' }), 201);
    await ok(api.post(`/v1/charges/${cleaning.id}/collect`));
    const fuel = await ok(api.post(`/v1/bookings/${b4.id}/charges`, { type: 'fuel', amount_cents: 1200, description: 'refuelling' }), 201);
    const d1 = await ok(api.post(`/v1/test/charges/${b4.mileageCharge}/dispute`, { reason: 'never drove that far' }), 201);
    const d2 = await ok(api.post(`/v1/charges/${cleaning.id}/disputes`, { reason: 'it was clean', description: 'The car was returned clean.' }), 201);
    const d3 = await ok(api.post(`/v1/charges/${fuel.id}/disputes`, { reason: 'the tank was full', description: 'Returned with a full tank.' }), 201);
    await ok(api.post(`/v1/disputes/${d1.id}/approve`));
    await ok(api.post(`/v1/disputes/${d2.id}/approve`));
    await ok(api.post(`/v1/disputes/${d3.id}/close`));
    await placeBooking(b4.id, '2025-03-17T12:00:00Z', '2025-03-30T12:00:00Z', '2025-04-02T12:00:00Z');
    await placeTransaction(b4.id, 'payment', '2025-03-17T12:30:00Z');
    await placeTransaction(b4.id, 'deposit_hold', '2025-03-17T12:35:00Z');
    await placeTransaction(b4.id, 'charge', '2025-03-18T11:00:00Z', cleaning.id);
    await placeTransaction(b4.id, 'refund', '2025-03-25T10:00:00Z', cleaning.id);
    await place('Dispute', d1.id, 'createdAt', '2025-03-18T10:00:00Z');
    await place('Dispute', d2.id, 'createdAt', '2025-03-19T10:00:00Z');
    await place('Dispute', d3.id, 'createdAt', '2025-03-19T11:00:00Z');
    await placeDecision(d1.id, 'dispute.approved', '2025-03-24T10:00:00Z');
    await placeDecision(d2.id, 'dispute.approved', '2025-03-25T10:00:00Z');
    await placeDecision(d3.id, 'dispute.closed', '2025-03-26T10:00:00Z');

    // Another business: a vehicle, a paid booking with a disputed charge, all in the same days.
    const other = restClient(t.baseUrl, t.other.test_secret_key);
    const ov = await createVehicle(other);
    await place('Vehicle', ov.id, 'createdAt', '2025-03-01T00:00:00Z');
    const ob = await returnedOverMiles(other, ov.id, 2);
    const od = await ok(other.post(`/v1/test/charges/${ob.mileageCharge}/dispute`, { reason: 'no' }), 201);
    await ok(other.post(`/v1/disputes/${od.id}/approve`));
    await placeBooking(ob.id, '2025-03-05T10:00:00Z', '2025-03-05T12:00:00Z', '2025-03-07T12:00:00Z');
    await placeTransaction(ob.id, 'payment', '2025-03-05T10:05:00Z');
    await place('Dispute', od.id, 'createdAt', '2025-03-06T10:00:00Z');
    await placeDecision(od.id, 'dispute.approved', '2025-03-06T11:00:00Z');

    // The live environment of this business: a vehicle, a booking and (no live processor here) its payment's row.
    const live = restClient(t.baseUrl, t.business.live_secret_key);
    const lv = await createVehicle(live);
    await place('Vehicle', lv.id, 'createdAt', '2025-03-01T00:00:00Z');
    const lb = await ok(live.post('/v1/bookings', { vehicle_id: lv.id, customer, ...soon(2, 24) }), 201);
    await placeBooking(lb.id, '2025-03-06T10:00:00Z', '2025-03-06T12:00:00Z', '2025-03-08T12:00:00Z');
    await t.db.prisma.transaction.create({
      data: { id: `txn_live_${lb.id}`, businessId: t.business.business_id, livemode: true, bookingId: lb.id, type: 'payment', status: 'succeeded', amountCents: 9800, currency: 'usd', createdAt: at('2025-03-06T10:05:00Z') },
    });
  }

  const query = (type: string, groupBy: string, extra = '') => `/v1/reports/${type}?from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}&group_by=${groupBy}${extra}`;

  describe.each(['revenue', 'bookings', 'utilization', 'disputes'] as const)('the %s report', (type) => {
    it.each(['day', 'week', 'month'] as const)('answers every figure by %s in JSON, CSV and GraphQL', async (groupBy) => {
      const expected: Record<string, unknown> & ReturnType<typeof expectedReport> = expectedReport(type, groupBy);
      // V1: B1's 48 hours and B4's 36 until Apr 1; V2: B2's 72 (B3 canceled, B5 refunded).
      if (type === 'utilization') {
        expected.by_vehicle = [
          { vehicle_id: vehicleIds[0], name: 'Toyota Corolla', archived_at: null, available_vehicle_hours: 744, booked_vehicle_hours: 84, utilization: 0.1129 },
          { vehicle_id: vehicleIds[1], name: 'Toyota Corolla', archived_at: null, available_vehicle_hours: 744, booked_vehicle_hours: 72, utilization: 0.0968 },
        ];
      }
      const json = await api.get(query(type, groupBy));
      expect(json.status, JSON.stringify(json.body)).toBe(200);
      expect(json.body).toEqual(expected);

      const csv = await api.get(query(type, groupBy, '&format=csv'));
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${type}-report-2025-03-01-2025-04-01.csv"`);
      expect(csv.body).toBe(csvOf(expected));
      // Asking by Accept is the same file.
      expect((await api.get(query(type, groupBy), { accept: 'text/csv' })).body).toBe(csv.body);

      const figures = Object.keys(expected.totals).map(camel);
      const field = `${type}Report`;
      const byVehicle = type === 'utilization' ? 'byVehicle { vehicleId name archivedAt availableVehicleHours bookedVehicleHours utilization }' : '';
      const res = await gql(`query($from: DateTime!, $to: DateTime!, $groupBy: ReportGrouping) {
        ${field}(from: $from, to: $to, groupBy: $groupBy) { type from to groupBy timezone currency rows { periodStart periodEnd ${figures.join(' ')} } totals { ${figures.join(' ')} } ${byVehicle} }
      }`, { from: FROM, to: TO, groupBy });
      expect(res.errors).toBeUndefined();
      const answer = res.data[field];
      const snake = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
      expect({
        object: 'report', ...snake({ ...answer, rows: undefined, totals: undefined, byVehicle: undefined }), rows: answer.rows.map(snake), totals: snake(answer.totals),
        ...(answer.byVehicle ? { by_vehicle: answer.byVehicle.map(snake) } : {}),
      }).toEqual(expected);
    });
  });

  it('reads a period given with another offset as the same instants, its buckets still cut at midnight UTC', async () => {
    const res = await api.get(`/v1/reports/revenue?from=${encodeURIComponent('2025-03-07T01:00:00+01:00')}&to=${encodeURIComponent('2025-03-09T00:00:00+01:00')}&group_by=day`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from: '2025-03-07T00:00:00.000Z', to: '2025-03-08T23:00:00.000Z' });
    expect(res.body.rows.map((r: Record<string, unknown>) => [r.period_start, r.period_end, r.gross_cents])).toEqual([
      ['2025-03-07T00:00:00.000Z', '2025-03-08T00:00:00.000Z', 17500],
      ['2025-03-08T00:00:00.000Z', '2025-03-08T23:00:00.000Z', 8000],
    ]);
  });

  it('cuts the buckets at midnight of a time zone, a daylight-saving day having 23 hours', async () => {
    // New York moved its clocks forward on 2025-03-09: that day runs 05:00Z → 04:00Z the next.
    const period = `from=${encodeURIComponent('2025-03-07T00:00:00-05:00')}&to=${encodeURIComponent('2025-03-11T00:00:00-04:00')}&group_by=day&timezone=America/New_York`;
    const revenue = await api.get(`/v1/reports/revenue?${period}`);
    expect(revenue.status, JSON.stringify(revenue.body)).toBe(200);
    expect(revenue.body).toMatchObject({ from: '2025-03-07T05:00:00.000Z', to: '2025-03-11T04:00:00.000Z', timezone: 'America/New_York' });
    expect(revenue.body.rows.map((r: Record<string, unknown>) => [r.period_start, r.period_end, r.gross_cents, r.refunds_cents])).toEqual([
      ['2025-03-07T05:00:00.000Z', '2025-03-08T05:00:00.000Z', 17500, 0],
      ['2025-03-08T05:00:00.000Z', '2025-03-09T05:00:00.000Z', 8000, 0],
      ['2025-03-09T05:00:00.000Z', '2025-03-10T04:00:00.000Z', 0, 0],
      ['2025-03-10T04:00:00.000Z', '2025-03-11T04:00:00.000Z', 0, 2500],
    ]);
    // B1 ends Mar 7 10:00Z (5 hours into its local day); B2 fills V2 from Mar 9 00:00Z (Mar 8 19:00 local).
    const utilization = await api.get(`/v1/reports/utilization?${period}`);
    expect(utilization.body.rows.map((r: Record<string, unknown>) => [r.available_vehicle_hours, r.booked_vehicle_hours])).toEqual([
      [48, 5], [48, 5], [46, 23], [48, 24],
    ]);
  });

  it('keeps a vehicle archived today in the periods it was in the fleet, and counts it per vehicle, over REST and GraphQL', async () => {
    // Given a business of its own with two vans in the fleet since 40 days ago; the old van was
    // booked 20 → 18 days ago, the new one 15 → 14 days ago
    const biz = await createBusiness(t.db.prisma, { name: 'Archive Rentals' });
    const own = restClient(t.baseUrl, biz.test_secret_key);
    const midnight = new Date(new Date().setUTCHours(0, 0, 0, 0)).getTime();
    const dayAt = (n: number) => new Date(midnight + n * 86_400_000).toISOString();
    const oldVan = await createVehicle(own, { name: 'Old Van' });
    const newVan = await createVehicle(own, { name: 'New Van' });
    for (const [vehicle, start, end] of [[oldVan, -20, -18], [newVan, -15, -14]] as const) {
      const { id } = await ok(own.post('/v1/test/bookings', { vehicle_id: vehicle.id, customer, ...soon(1) }), 201);
      await ok(own.post(`/v1/test/bookings/${id}/payment/succeed`));
      await placeBooking(id, dayAt(-30), dayAt(start), dayAt(end));
      await place('Vehicle', vehicle.id, 'createdAt', dayAt(-40));
    }

    // When the old van is archived today
    const before = Date.now();
    expect((await own.call('DELETE', `/v1/vehicles/${oldVan.id}`)).body).toMatchObject({ status: 'archived' });

    // Then a past period still counts it, in its buckets and per vehicle
    const past = await ok(own.get(`/v1/reports/utilization?from=${encodeURIComponent(dayAt(-40))}&to=${encodeURIComponent(dayAt(-10))}&group_by=month`));
    expect(past.totals).toEqual({ vehicles: 2, available_vehicle_hours: 1440, booked_vehicle_hours: 72, utilization: 0.05 });
    expect(past.by_vehicle).toEqual([
      { vehicle_id: oldVan.id, name: 'Old Van', archived_at: expect.any(String), available_vehicle_hours: 720, booked_vehicle_hours: 48, utilization: 0.0667 },
      { vehicle_id: newVan.id, name: 'New Van', archived_at: null, available_vehicle_hours: 720, booked_vehicle_hours: 24, utilization: 0.0333 },
    ].sort((a, b) => a.vehicle_id.localeCompare(b.vehicle_id)));
    const archivedAt = new Date(past.by_vehicle.find((v: { vehicle_id: string }) => v.vehicle_id === oldVan.id).archived_at).getTime();
    expect(archivedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(archivedAt).toBeLessThanOrEqual(Date.now() + 1000);

    // And today's bucket counts it until it was archived, tomorrow's not at all
    const days = await ok(own.get(`/v1/reports/utilization?from=${encodeURIComponent(dayAt(-1))}&to=${encodeURIComponent(dayAt(2))}&group_by=day`));
    const today = Math.round(((archivedAt - midnight) / 3_600_000) * 100) / 100;
    expect(days.rows.map((r: Record<string, number>) => [r.vehicles, r.available_vehicle_hours])).toEqual([[2, 48], [2, Math.round((24 + today) * 100) / 100], [1, 24]]);
    expect(days.by_vehicle.map((v: { vehicle_id: string }) => v.vehicle_id).sort()).toEqual([oldVan.id, newVan.id].sort());

    // And GraphQL answers the same
    const res = await graphqlClient(t.baseUrl, biz.test_secret_key)(`query($from: DateTime!, $to: DateTime!) {
      utilizationReport(from: $from, to: $to, groupBy: month) { totals { vehicles availableVehicleHours } byVehicle { vehicleId name archivedAt availableVehicleHours bookedVehicleHours utilization } }
    }`, { from: dayAt(-40), to: dayAt(-10) });
    expect(res.errors).toBeUndefined();
    expect(res.data.utilizationReport.totals).toEqual({ vehicles: 2, availableVehicleHours: 1440 });
    expect(res.data.utilizationReport.byVehicle).toEqual(past.by_vehicle.map((v: Record<string, unknown>) => ({
      vehicleId: v.vehicle_id, name: v.name, archivedAt: v.archived_at, availableVehicleHours: v.available_vehicle_hours, bookedVehicleHours: v.booked_vehicle_hours, utilization: v.utilization,
    })));
  });

  it("without a period, covers the 30 days up to the end of today: the sandbox's today for a test key, over REST and GraphQL", async () => {
    // Given a business whose sandbox clock runs 40 days ahead
    const biz = await createBusiness(t.db.prisma, { name: 'Clock Rentals' });
    const sandbox = restClient(t.baseUrl, biz.test_secret_key);
    const live = restClient(t.baseUrl, biz.live_secret_key);
    await ok(sandbox.post('/v1/test/clock/advance', { seconds: 40 * 86_400 }));
    const endOfDay = (ms: number) => new Date(new Date(ms).setUTCHours(24, 0, 0, 0));
    const daysBefore = (end: Date, n: number) => new Date(end.getTime() - n * 86_400_000).toISOString();

    // When each asks for a report without from and to
    const test = await ok(sandbox.get('/v1/reports/bookings?group_by=week'));
    const real = await ok(live.get('/v1/reports/bookings?group_by=week'));

    // Then the live key's period ends at the next midnight, the test key's at the sandbox's next midnight
    const realEnd = endOfDay(Date.now());
    const sandboxEnd = endOfDay(Date.now() + 40 * 86_400_000);
    expect({ from: real.from, to: real.to }).toEqual({ from: daysBefore(realEnd, 30), to: realEnd.toISOString() });
    expect({ from: test.from, to: test.to }).toEqual({ from: daysBefore(sandboxEnd, 30), to: sandboxEnd.toISOString() });
    // Today in another zone ends at its own midnight (Tokyo is 9 hours ahead of UTC, without daylight saving)
    const tokyo = await ok(sandbox.get('/v1/reports/bookings?timezone=Asia/Tokyo'));
    const tokyoEnd = new Date(endOfDay(Date.now() + 40 * 86_400_000 + 9 * 3_600_000).getTime() - 9 * 3_600_000);
    expect({ from: tokyo.from, to: tokyo.to }).toEqual({ from: daysBefore(tokyoEnd, 30), to: tokyoEnd.toISOString() });
    // Only `to`: the 30 days before it; only a `from` after today's end: 422 naming to
    expect(await ok(sandbox.get(`/v1/reports/revenue?to=${encodeURIComponent(TO)}`))).toMatchObject({ from: iso('2025-03-02T00:00:00Z'), to: iso(TO) });
    const late = await sandbox.get(`/v1/reports/revenue?from=${encodeURIComponent(daysBefore(sandboxEnd, -1))}`);
    expect(late.status).toBe(422);
    expect(late.body.error).toMatchObject({ code: 'parameter_invalid', param: 'to' });

    // And a vehicle archived in the sandbox is archived at the sandbox's time
    const van = await createVehicle(sandbox, { name: 'Future Van' });
    await ok(sandbox.call('DELETE', `/v1/vehicles/${van.id}`));
    const archivedAt = new Date((await ok(sandbox.get('/v1/reports/utilization'))).by_vehicle[0].archived_at).getTime();
    expect(Math.abs(archivedAt - (Date.now() + 40 * 86_400_000))).toBeLessThan(60_000);

    // And GraphQL reads the same period
    const res = await graphqlClient(t.baseUrl, biz.test_secret_key)('{ bookingsReport(groupBy: week) { from to } }');
    expect(res.errors).toBeUndefined();
    expect(res.data.bookingsReport).toEqual({ from: test.from, to: test.to });
  });

  it('documents each CSV answer in the OpenAPI document: text/csv, every column described in order, an example whose header is those columns', async () => {
    const doc = (await restClient(t.baseUrl, null).get('/v1/openapi.json')).body;
    for (const type of ['revenue', 'bookings', 'utilization', 'disputes'] as const) {
      const content = doc.paths[`/v1/reports/${type}`].get.responses['200'].content;
      expect(Object.keys(content).sort()).toEqual(['application/json', 'text/csv']);
      const csv = content['text/csv'];
      const names = ['period_start', 'period_end', ...Object.keys(EXPECTED[type].totals)];
      expect(csv.schema.type).toBe('string');
      expect(csv.schema['x-csv-columns'].map((c: { name: string }) => c.name)).toEqual(names);
      for (const column of csv.schema['x-csv-columns']) {
        expect(column.description.length, column.name).toBeGreaterThan(10);
        expect(['string', 'integer', 'number']).toContain(column.type);
        expect(csv.schema.description).toContain(`\`${column.name}\``);
      }
      const lines = csv.example.split('\r\n');
      expect(lines[0]).toBe(names.join(','));
      expect(lines[1].split(',')).toHaveLength(names.length);
      expect(lines[2]).toBe('');
      // The answer itself has the documented header (every CSV answer of these tests is checked so: test/support/openapi-check.ts).
      expect((await api.get(query(type, 'week', '&format=csv'))).body.split('\r\n')[0]).toBe(names.join(','));
      // The JSON example is a report of its type.
      expect(content['application/json'].example).toMatchObject({ object: 'report', type, rows: [expect.any(Object)] });
    }
    expect(doc.paths['/v1/reports/utilization'].get.responses['200'].content['application/json'].example.by_vehicle).toHaveLength(2);
  });

  it('refuses a bad period or grouping with 422 naming the parameter, over REST and GraphQL', async () => {
    const cases: [string, string, string][] = [
      [`from=2025-03-01&to=${encodeURIComponent(TO)}`, 'from', 'parameter_invalid'],
      [`from=${encodeURIComponent(FROM)}&to=2025-02-30T00:00:00Z`, 'to', 'parameter_invalid'],
      [`from=${encodeURIComponent(TO)}&to=${encodeURIComponent(FROM)}`, 'to', 'parameter_invalid'],
      [`from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(FROM)}`, 'to', 'parameter_invalid'],
      [`from=${encodeURIComponent(FROM)}&to=2026-04-06T00:00:01Z`, 'to', 'parameter_invalid'],
      [`from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}&group_by=year`, 'group_by', 'parameter_invalid'],
      [`from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}&format=xml`, 'format', 'parameter_invalid'],
      [`from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}&timezone=Mars/Olympus_Mons`, 'timezone', 'parameter_invalid'],
      [`from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}&timezone=UTC%2B3`, 'timezone', 'parameter_invalid'],
      [`from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}&groupby=day`, 'groupby', 'parameter_unknown'],
    ];
    for (const [q, param, code] of cases) {
      const res = await api.get(`/v1/reports/bookings?${q}`);
      expect({ q, status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({ q, status: 422, code, param });
    }
    // 400 days is the most a report covers.
    expect((await api.get(`/v1/reports/bookings?from=${encodeURIComponent(FROM)}&to=2026-04-05T00:00:00Z&group_by=month`)).status).toBe(200);

    const res = await gql('{ disputesReport(from: "2025-04-01T00:00:00Z", to: "2025-03-01T00:00:00Z") { type } }');
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'parameter_invalid', param: 'to' });
  });

  it('needs reports:read: a key without it, as an agent has, gets 403', async () => {
    const agent = await createApiKey(t.db.prisma, { businessId: t.business.business_id, livemode: false, kind: 'secret', permissions: [...ROLE_PERMISSIONS.agent] });
    const { key } = agent;
    const res = await restClient(t.baseUrl, key).get(query('revenue', 'day'));
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'permission_denied' });
    const viaGraphql = await graphqlClient(t.baseUrl, key)(`{ revenueReport(from: "${FROM}", to: "${TO}") { type } }`);
    expect(viaGraphql.errors?.[0].extensions).toMatchObject({ code: 'permission_denied' });
  });
});
