import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentErrors } from '../src/domain/payments/payment.errors.ts';
import type { PaymentProcessor } from '../src/domain/payments/processor.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { sandboxProcessor } from '../src/processors/sandbox-processor.ts';
import { ENGINES, graphqlClient, period, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, nextPeriod } from './support/fixtures.ts';

/*
 * Changing a booking after it was made, through the public API: a partial update (metadata
 * always, the period and mileage option while nothing was paid, re-priced as a quote would
 * be) and an extension of a paid booking (the extra days priced, charged to the saved card,
 * recorded as a transaction), on both engines, over REST and GraphQL. The processor is the
 * sandbox's, scripted to decline or not answer where a test says so.
 */

const DAY = 86_400_000;

/** The sandbox's processor with off-session charges a test can make decline or go unanswered; it keeps the keys it was sent. */
function scriptedProcessor() {
  const sandbox = sandboxProcessor();
  /** `refundOf`: the processor payment whose refunds go unanswered. */
  const script: { chargeOffSession?: 'declined' | 'unreachable'; refundOf?: string } = {};
  const charges: { idempotencyKey: string; amountCents: number }[] = [];
  /** Every refund asked for: which processor payment it gives back, and how much. */
  const refunds: { processorPaymentId: string; amountCents: number; idempotencyKey: string }[] = [];
  const processor: PaymentProcessor = {
    ...sandbox,
    name: 'scripted-sandbox',
    async refund(request) {
      refunds.push({ processorPaymentId: request.processorPaymentId, amountCents: request.amountCents, idempotencyKey: request.idempotencyKey });
      if (script.refundOf === request.processorPaymentId) throw new Error('connect ETIMEDOUT');
      return sandbox.refund(request);
    },
    async chargeOffSession(request) {
      charges.push({ idempotencyKey: request.idempotencyKey, amountCents: request.amountCents });
      if (script.chargeOffSession === 'declined') throw PaymentErrors.cardDeclined('Your card was declined.');
      if (script.chargeOffSession === 'unreachable') throw new Error('connect ETIMEDOUT');
      return sandbox.chargeOffSession(request);
    },
  };
  /** The processor's id of the off-session charge made under `idempotencyKey` (the sandbox derives it from the key). */
  const chargeIdOf = async (idempotencyKey: string) => (await sandbox.chargeOffSession({ bookingId: '', customerId: '', paymentReference: null, amountCents: 0, currency: 'usd', idempotencyKey })).id;
  return { processor, script, charges, refunds, chargeIdOf };
}

describe.each(ENGINES)('booking changes on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  const scripted = scriptedProcessor();

  beforeAll(async () => {
    t = await startTestApp(engine, {}, { processors: { test: scripted.processor, live: scripted.processor } });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  const eventTypes = async (bookingId: string) => (await api.get(`/v1/events?booking_id=${bookingId}&limit=100`)).body.data.map((e: { type: string }) => e.type);
  const transactions = async (bookingId: string) => (await api.get(`/v1/bookings/${bookingId}/transactions?limit=100`)).body.data as Record<string, any>[];

  /** A paid two-day booking (400 miles included) on a vehicle of its own, starting `startDays` from now. */
  async function paidBooking(options: { startDays?: number; unlimited?: boolean } = {}) {
    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id, { ...period(options.startDays ?? 5, 2), unlimited_miles: Boolean(options.unlimited) });
    expect((await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
    return { vehicle, booking: (await api.get(`/v1/bookings/${booking.id}`)).body };
  }

  /** The books of a booking balance: nothing pending; its total is the payment plus the extensions collected. */
  async function reconciled(bookingId: string) {
    const [booking, payment, rows] = await Promise.all([api.get(`/v1/bookings/${bookingId}`), api.get(`/v1/bookings/${bookingId}/payment`), transactions(bookingId)]);
    expect(rows.filter((x) => x.status === 'pending')).toEqual([]);
    const extensions = rows.filter((x) => x.type === 'extension' && x.status === 'succeeded').reduce((s, x) => s + x.amount_cents, 0);
    const paid = rows.filter((x) => x.type === 'payment' && x.status === 'succeeded').reduce((s, x) => s + x.amount_cents, 0);
    expect(paid).toBe(payment.body.amount_cents);
    expect(booking.body.total_cents).toBe(payment.body.amount_cents + extensions);
  }

  describe('update', () => {
    it('changes only the metadata sent: a key set to "" is removed, others kept; booking.updated; a replay changes nothing again', async () => {
      const vehicle = await createVehicle(api);
      const booking = await createBooking(api, vehicle.id, { metadata: { order_id: '1001', channel: 'web' } });
      const res = await api.post(`/v1/bookings/${booking.id}`, { metadata: { channel: '', crm_id: 'c-7' } }, { 'idempotency-key': `md-${booking.id}` });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: booking.id, state: 'pending_payment', metadata: { order_id: '1001', crm_id: 'c-7' }, end_at: booking.end_at, total_cents: booking.total_cents });
      expect(Object.keys(res.body.metadata)).toHaveLength(2);
      const replay = await api.post(`/v1/bookings/${booking.id}`, { metadata: { channel: '', crm_id: 'c-7' } }, { 'idempotency-key': `md-${booking.id}` });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(res.body);
      expect((await eventTypes(booking.id)).filter((e: string) => e === 'booking.updated')).toHaveLength(1);

      const viaGraphql = await gql(`mutation($id: ID!, $input: UpdateBookingInput) { updateBooking(id: $id, input: $input) { id metadata endAt } }`, { id: booking.id, input: { metadata: { order_id: '' } } });
      expect(viaGraphql.errors).toBeUndefined();
      expect(viaGraphql.data.updateBooking).toEqual({ id: booking.id, metadata: { crm_id: 'c-7' }, endAt: booking.end_at });

      // Metadata changes until the booking has ended, even once paid; null removes every key.
      expect((await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
      expect((await api.post(`/v1/bookings/${booking.id}`, { metadata: null })).body.metadata).toEqual({});
      await api.post(`/v1/bookings/${booking.id}/cancel`);
      const ended = await api.post(`/v1/bookings/${booking.id}`, { metadata: { late: 'yes' } });
      expect(ended.status).toBe(409);
      expect(ended.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: expect.stringMatching(/^(canceled|refunded)$/) });
    });

    it('refuses a new period on a vehicle archived meanwhile with 409 vehicle_archived, as creation does, changing nothing', async () => {
      // A business of its own: the test moves its sandbox clock.
      const own = await createBusiness(t.db.prisma, { name: 'Archived Fleet Rentals' });
      const client = restClient(t.baseUrl, own.test_secret_key);
      const vehicle = await createVehicle(client);
      // A ten-minute rental starting soon: once it has passed, the unpaid booking (its hold
      // still running) no longer holds the vehicle, which can then be archived.
      const start = new Date(Date.now() + 10 * 60_000);
      const booking = await createBooking(client, vehicle.id, { start_at: start.toISOString(), end_at: new Date(start.getTime() + 10 * 60_000).toISOString() });
      expect((await client.post('/v1/test/clock/advance', { seconds: 25 * 60 })).status).toBe(200);
      expect((await client.call('DELETE', `/v1/vehicles/${vehicle.id}`)).status).toBe(200);

      const later = period(3, 2);
      const res = await client.post(`/v1/bookings/${booking.id}`, later);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ type: 'conflict', code: 'vehicle_archived', vehicle_id: vehicle.id });
      const viaGraphql = await graphqlClient(t.baseUrl, own.test_secret_key)(`mutation($id: ID!, $input: UpdateBookingInput) { updateBooking(id: $id, input: $input) { id } }`, { id: booking.id, input: { startAt: later.start_at, endAt: later.end_at } });
      expect(viaGraphql.errors?.[0].extensions).toMatchObject({ code: 'vehicle_archived' });
      expect((await client.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'pending_payment', start_at: booking.start_at, end_at: booking.end_at });
      // Metadata still changes: only a new period is a new booking of the vehicle.
      expect((await client.post(`/v1/bookings/${booking.id}`, { metadata: { note: 'kept' } })).status).toBe(200);
    });

    it("re-prices a pending booking's new period and mileage option exactly as a quote does; the payment follows; the timeline lists the call", async () => {
      const vehicle = await createVehicle(api);
      const booking = await createBooking(api, vehicle.id);
      const later = nextPeriod(3);
      const end = new Date(new Date(later.end_at).getTime() + 5 * 3_600_000).toISOString(); // 3 days and 5 hours: 4 days
      const quote = await api.post('/v1/quotes', { vehicle_id: vehicle.id, start_at: later.start_at, end_at: end, unlimited_miles: true });
      expect(quote.status).toBe(201);

      const res = await api.post(`/v1/bookings/${booking.id}`, { start_at: later.start_at, end_at: end, unlimited_miles: true });
      expect(res.status).toBe(200);
      const figures = ['days', 'daily_rate_cents', 'rental_cents', 'unlimited_miles_fee_cents', 'deposit_cents', 'included_miles', 'extra_mile_fee_cents', 'total_cents', 'currency'] as const;
      for (const f of figures) expect(res.body[f], f).toEqual(quote.body[f]);
      expect(res.body).toMatchObject({ start_at: later.start_at, end_at: end, unlimited_miles: true, days: 4, total_cents: 4 * (4900 + 1500), included_miles: null, state: 'pending_payment' });
      expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ amount_cents: 4 * (4900 + 1500) });
      expect(await eventTypes(booking.id)).toContain('booking.updated');
      const timeline = (await api.get(`/v1/bookings/${booking.id}/timeline`)).body;
      expect(timeline.entries.filter((e: any) => e.kind === 'api_call').map((e: any) => `${e.method} ${e.path}`)).toContain(`POST /v1/bookings/${booking.id}`);

      // Over GraphQL, back to limited miles: included miles follow the days.
      const gqlRes = await gql(`mutation($id: ID!, $input: UpdateBookingInput) { updateBooking(id: $id, input: $input) { days totalCents includedMiles unlimitedMiles } }`, { id: booking.id, input: { unlimitedMiles: false } });
      expect(gqlRes.data.updateBooking).toEqual({ days: 4, totalCents: 4 * 4900, includedMiles: 800, unlimitedMiles: false });

      // Paid afterwards, it pays the new price.
      expect((await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
      await reconciled(booking.id);
    });

    it('refuses a period that overlaps another booking of the vehicle (409 vehicle_unavailable), and bad periods (422), changing nothing', async () => {
      const vehicle = await createVehicle(api);
      const first = await createBooking(api, vehicle.id);
      const second = await createBooking(api, vehicle.id);
      const overlap = await api.post(`/v1/bookings/${second.id}`, { start_at: new Date(new Date(first.end_at).getTime() - DAY).toISOString(), end_at: second.end_at });
      expect(overlap.status).toBe(409);
      expect(overlap.body.error).toMatchObject({ type: 'conflict', code: 'vehicle_unavailable' });
      const gqlOverlap = await gql(`mutation($id: ID!, $input: UpdateBookingInput) { updateBooking(id: $id, input: $input) { id } }`, { id: second.id, input: { startAt: first.start_at } });
      expect(gqlOverlap.errors?.[0].extensions).toMatchObject({ code: 'vehicle_unavailable' });

      const backwards = await api.post(`/v1/bookings/${second.id}`, { end_at: second.start_at });
      expect(backwards.status).toBe(422);
      expect(backwards.body.error).toMatchObject({ code: 'parameter_invalid', param: 'end_at' });
      const past = await api.post(`/v1/bookings/${second.id}`, { start_at: new Date(Date.now() - 2 * DAY).toISOString() });
      expect(past.body.error).toMatchObject({ code: 'parameter_invalid', param: 'start_at' });
      const noOffset = await api.post(`/v1/bookings/${second.id}`, { end_at: '2030-01-01T10:00:00' });
      expect(noOffset.body.error).toMatchObject({ code: 'parameter_invalid', param: 'end_at' });
      const cleared = await api.post(`/v1/bookings/${second.id}`, { end_at: null });
      expect(cleared.status).toBe(422);
      const unknown = await api.post(`/v1/bookings/${second.id}`, { vehicle_id: vehicle.id });
      expect(unknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'vehicle_id' });

      const after = (await api.get(`/v1/bookings/${second.id}`)).body;
      expect(after).toMatchObject({ start_at: second.start_at, end_at: second.end_at, total_cents: second.total_cents });
    });

    it('refuses a period change once a checkout is under way, and points a paid booking to extend, naming the state', async () => {
      const vehicle = await createVehicle(api);
      const booking = await createBooking(api, vehicle.id);
      expect((await api.post(`/v1/bookings/${booking.id}/checkout`)).status).toBe(201);
      const checkout = await api.post(`/v1/bookings/${booking.id}`, { end_at: new Date(new Date(booking.end_at).getTime() + DAY).toISOString() });
      expect(checkout.status).toBe(409);
      expect(checkout.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'checkout_started' });
      expect(checkout.body.error.message).toContain("'checkout_started'");

      const { booking: paid } = await paidBooking();
      const res = await api.post(`/v1/bookings/${paid.id}`, { end_at: new Date(new Date(paid.end_at).getTime() + DAY).toISOString() });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: paid.state });
      expect(res.body.error.message).toContain('/extend');
    });
  });

  describe('extend', () => {
    it('charges the extra days at the booking’s rates, records an extension transaction that reconciles, and emits booking.extended', async () => {
      const { booking } = await paidBooking();
      expect(booking).toMatchObject({ days: 2, total_cents: 9800, included_miles: 400 });
      const before = scripted.charges.length;
      const endAt = new Date(new Date(booking.end_at).getTime() + DAY + 3_600_000).toISOString(); // 3 days and an hour: 4 days
      const res = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt }, { 'idempotency-key': `ext-${booking.id}` });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: booking.id, state: booking.state, start_at: booking.start_at, end_at: endAt, days: 4, rental_cents: 4 * 4900, total_cents: 4 * 4900, included_miles: 800 });
      expect(scripted.charges.slice(before)).toEqual([{ idempotencyKey: expect.stringContaining(booking.id), amountCents: 2 * 4900 }]);

      // A replay answers the same and charges nothing more.
      const replay = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt }, { 'idempotency-key': `ext-${booking.id}` });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(res.body);
      expect(scripted.charges.length).toBe(before + 1);

      const rows = await transactions(booking.id);
      expect(rows.filter((x) => x.type === 'extension')).toEqual([expect.objectContaining({ object: 'transaction', type: 'extension', status: 'succeeded', amount_cents: 9800, currency: 'usd' })]);
      await reconciled(booking.id);
      const events = (await api.get(`/v1/events?booking_id=${booking.id}&type=booking.extended`)).body.data;
      expect(events).toHaveLength(1);
      expect(events[0].data.object).toMatchObject({ object: 'booking', id: booking.id, end_at: endAt, total_cents: 19_600 });
      const timeline = (await api.get(`/v1/bookings/${booking.id}/timeline`)).body;
      expect(timeline.entries.filter((e: any) => e.kind === 'api_call').map((e: any) => e.path)).toContain(`/v1/bookings/${booking.id}/extend`);
    });

    it('extends over GraphQL with unlimited miles: the fee follows the days, included miles stay unlimited', async () => {
      const { booking } = await paidBooking({ unlimited: true });
      const endAt = new Date(new Date(booking.end_at).getTime() + DAY).toISOString();
      const res = await gql(`mutation($id: ID!, $input: ExtendBookingInput!) { extendBooking(id: $id, input: $input) { endAt days rentalCents unlimitedMilesFeeCents includedMiles totalCents } }`, { id: booking.id, input: { endAt } });
      expect(res.errors).toBeUndefined();
      expect(res.data.extendBooking).toEqual({ endAt, days: 3, rentalCents: 3 * 4900, unlimitedMilesFeeCents: 3 * 1500, includedMiles: null, totalCents: 3 * 6400 });
      expect((await transactions(booking.id)).find((x) => x.type === 'extension')).toMatchObject({ amount_cents: 6400, status: 'succeeded' });
      await reconciled(booking.id);
    });

    it('keeps the old end when the card is declined (402), and when the processor does not answer (502) retries under the same key', async () => {
      const { booking } = await paidBooking();
      const endAt = new Date(new Date(booking.end_at).getTime() + DAY).toISOString();
      scripted.script.chargeOffSession = 'declined';
      try {
        const declined = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt });
        expect(declined.status).toBe(402);
        expect(declined.body.error).toMatchObject({ type: 'payment_error', code: 'card_declined' });
        const gqlDeclined = await gql(`mutation($id: ID!, $input: ExtendBookingInput!) { extendBooking(id: $id, input: $input) { endAt } }`, { id: booking.id, input: { endAt } });
        expect(gqlDeclined.errors?.[0].extensions).toMatchObject({ code: 'card_declined' });
        scripted.script.chargeOffSession = 'unreachable';
        const unanswered = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt });
        expect(unanswered.status).toBe(502);
        expect(unanswered.body.error).toMatchObject({ code: 'processor_unavailable' });
      } finally {
        delete scripted.script.chargeOffSession;
      }
      const kept = (await api.get(`/v1/bookings/${booking.id}`)).body;
      expect(kept).toMatchObject({ end_at: booking.end_at, days: 2, total_cents: booking.total_cents, state: booking.state });
      expect((await transactions(booking.id)).filter((x) => x.type === 'extension').map((x) => x.status)).toEqual(['failed', 'failed', 'failed']);
      expect(await eventTypes(booking.id)).not.toContain('booking.extended');
      await reconciled(booking.id);

      const keysBefore = scripted.charges.map((c) => c.idempotencyKey);
      const extended = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt });
      expect(extended.status).toBe(200);
      expect(extended.body).toMatchObject({ end_at: endAt, days: 3 });
      // Two declines made two keys; the unanswered attempt's key is the one the retry used.
      const mine = [...keysBefore, scripted.charges.at(-1)!.idempotencyKey].filter((k) => k.includes(booking.id));
      expect(new Set(mine.slice(0, 2)).size).toBe(2);
      expect(mine[3]).toBe(mine[2]);
      await reconciled(booking.id);
    });

    it('refuses an extension of a booking whose vehicle was archived meanwhile with 409 vehicle_archived, as creation and a new period do: nothing charged, nothing changed', async () => {
      // A business of its own: the test moves its sandbox clock.
      const own = await createBusiness(t.db.prisma, { name: 'Archived Extension Rentals' });
      const client = restClient(t.baseUrl, own.test_secret_key);
      const vehicle = await createVehicle(client);
      // A paid ten-minute rental starting soon, never picked up: once its period has passed it
      // no longer holds the vehicle, which can then be archived.
      const start = new Date(Date.now() + 10 * 60_000);
      const booking = await createBooking(client, vehicle.id, { start_at: start.toISOString(), end_at: new Date(start.getTime() + 10 * 60_000).toISOString() });
      expect((await client.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
      expect((await client.post('/v1/test/clock/advance', { seconds: 25 * 60 })).status).toBe(200);
      expect((await client.call('DELETE', `/v1/vehicles/${vehicle.id}`)).status).toBe(200);
      const paid = (await client.get(`/v1/bookings/${booking.id}`)).body;
      expect(paid.state).toMatch(/^(booked|confirmed)$/);

      const before = scripted.charges.length;
      const endAt = new Date(start.getTime() + 2 * DAY).toISOString();
      const res = await client.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ type: 'conflict', code: 'vehicle_archived', vehicle_id: vehicle.id });
      const viaGraphql = await graphqlClient(t.baseUrl, own.test_secret_key)(`mutation($id: ID!, $input: ExtendBookingInput!) { extendBooking(id: $id, input: $input) { endAt } }`, { id: booking.id, input: { endAt } });
      expect(viaGraphql.errors?.[0].extensions).toMatchObject({ code: 'vehicle_archived' });
      expect(scripted.charges.length).toBe(before);
      expect((await client.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: paid.state, end_at: booking.end_at, total_cents: booking.total_cents });
      expect(((await client.get(`/v1/bookings/${booking.id}/transactions`)).body.data as { type: string }[]).map((x) => x.type)).toEqual(['payment']);
    });

    it.each(['REST', 'GraphQL'] as const)("cancelling an extended booking (%s) refunds the extension's charge too, by the same policy, each refund against the charge it gives back; the transactions reconcile", async (transport) => {
      const { booking } = await paidBooking();
      const endAt = new Date(new Date(booking.end_at).getTime() + DAY).toISOString();
      expect((await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt })).status).toBe(200);
      const extension = (await transactions(booking.id)).find((x) => x.type === 'extension')!;
      expect(extension).toMatchObject({ status: 'succeeded', amount_cents: 4900 });
      const extensionCharge = await scripted.chargeIdOf(scripted.charges.filter((c) => c.idempotencyKey.includes(booking.id)).at(-1)!.idempotencyKey);

      const before = scripted.refunds.length;
      if (transport === 'REST') {
        const res = await api.post(`/v1/bookings/${booking.id}/cancel`, { reason: 'plans changed' });
        expect(res.status).toBe(200);
        expect(res.body.state).toBe('refunded');
      } else {
        const res = await gql(`mutation($id: ID!) { cancelBooking(id: $id, input: { reason: "plans changed" }) { state } }`, { id: booking.id });
        expect(res.errors).toBeUndefined();
        expect(res.data.cancelBooking.state).toBe('refunded');
      }
      // Canceled well before the start: everything goes back, the payment to its payment, the extension to its charge.
      const asked = scripted.refunds.slice(before);
      expect(asked.filter((r) => r.processorPaymentId === extensionCharge).map((r) => r.amountCents)).toEqual([4900]);
      expect(asked.filter((r) => r.processorPaymentId !== extensionCharge).map((r) => r.amountCents)).toEqual([booking.total_cents]);

      const rows = await transactions(booking.id);
      const refunds = rows.filter((x) => x.type === 'refund');
      expect(refunds.map((x) => [x.refunded_transaction_id, x.amount_cents, x.status]).sort()).toEqual([[extension.id, 4900, 'succeeded'], [null, booking.total_cents, 'succeeded']].sort());
      const payment = (await api.get(`/v1/bookings/${booking.id}/payment`)).body;
      expect(payment).toMatchObject({ state: 'refunded', amount_refunded_cents: payment.amount_cents });
      expect(refunds.filter((x) => x.refunded_transaction_id === null).reduce((sum, x) => sum + x.amount_cents, 0)).toBe(payment.amount_refunded_cents);
      await reconciled(booking.id);
      if (transport === 'GraphQL') {
        const listed = await gql(`query($id: ID!) { bookingTransactions(bookingId: $id, first: 20) { edges { node { id type amountCents refundedTransactionId } } } }`, { id: booking.id });
        expect(listed.errors).toBeUndefined();
        const nodes = listed.data.bookingTransactions.edges.map((e: any) => e.node);
        expect(nodes.filter((n: any) => n.type === 'refund' && n.refundedTransactionId === extension.id).map((n: any) => n.amountCents)).toEqual([4900]);
      }
    });

    it("an extension's refund the processor fails is a failed refund transaction and leaves the payment's refund as it was", async () => {
      const { booking } = await paidBooking();
      expect((await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: new Date(new Date(booking.end_at).getTime() + DAY).toISOString() })).status).toBe(200);
      const extension = (await transactions(booking.id)).find((x) => x.type === 'extension')!;
      scripted.script.refundOf = await scripted.chargeIdOf(scripted.charges.filter((c) => c.idempotencyKey.includes(booking.id)).at(-1)!.idempotencyKey);
      try {
        const res = await api.post(`/v1/bookings/${booking.id}/cancel`);
        expect(res.status).toBe(200);
        expect(res.body.state).toBe('refunded');
      } finally {
        delete scripted.script.refundOf;
      }
      const refunds = (await transactions(booking.id)).filter((x) => x.type === 'refund');
      expect(refunds.map((x) => [x.refunded_transaction_id, x.amount_cents, x.status]).sort()).toEqual([[extension.id, extension.amount_cents, 'failed'], [null, booking.total_cents, 'succeeded']].sort());
      expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'refunded', amount_refunded_cents: booking.total_cents });
      expect(await eventTypes(booking.id)).not.toContain('payment.refund_failed');
      await reconciled(booking.id);
    });

    it("a late cancellation gives back the extension's charge by the same late percentage as the payment", async () => {
      const own = await createBusiness(t.db.prisma, { name: 'Late Cancellation Rentals' });
      const client = restClient(t.baseUrl, own.test_secret_key);
      expect((await client.post('/v1/business/settings', { cancellation_window_hours: 24 * 30, late_cancellation_refund_percent: 25 })).status).toBe(200);
      const vehicle = await createVehicle(client);
      const booking = await createBooking(client, vehicle.id, period(3, 2)); // inside the 30-day window
      expect((await client.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
      expect((await client.post(`/v1/bookings/${booking.id}/extend`, { end_at: new Date(new Date(booking.end_at).getTime() + 2 * DAY).toISOString() })).status).toBe(200);
      const rowsOf = async () => (await client.get(`/v1/bookings/${booking.id}/transactions?limit=100`)).body.data as Record<string, any>[];
      const extension = (await rowsOf()).find((x) => x.type === 'extension')!;
      expect(extension.amount_cents).toBe(2 * 4900);

      expect((await client.post(`/v1/bookings/${booking.id}/cancel`)).body.state).toBe('refunded');
      const refunds = (await rowsOf()).filter((x) => x.type === 'refund');
      expect(refunds.map((x) => [x.refunded_transaction_id, x.amount_cents, x.status]).sort()).toEqual([[extension.id, Math.floor(2 * 4900 * 0.25), 'succeeded'], [null, Math.floor(booking.total_cents * 0.25), 'succeeded']].sort());
      expect((await client.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'partially_refunded', amount_refunded_cents: Math.floor(booking.total_cents * 0.25) });
    });

    it('refuses an extension into the following booking (409 vehicle_unavailable): nothing charged, nothing changed', async () => {
      const { vehicle, booking } = await paidBooking({ startDays: 40 });
      const following = await createBooking(api, vehicle.id, { start_at: new Date(new Date(booking.end_at).getTime() + DAY).toISOString(), end_at: new Date(new Date(booking.end_at).getTime() + 3 * DAY).toISOString() });
      const before = scripted.charges.length;
      const res = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: new Date(new Date(booking.end_at).getTime() + 2 * DAY).toISOString() });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ type: 'conflict', code: 'vehicle_unavailable' });
      expect(scripted.charges.length).toBe(before);
      expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ end_at: booking.end_at, total_cents: booking.total_cents });
      expect(await transactions(booking.id)).toHaveLength(1); // the payment only
      // Up to the following booking's start is free.
      expect((await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: following.start_at })).status).toBe(200);
    });

    it('refuses what is not an extension of a paid, unreturned booking, naming the state', async () => {
      const vehicle = await createVehicle(api);
      const pending = await createBooking(api, vehicle.id);
      const later = new Date(new Date(pending.end_at).getTime() + DAY).toISOString();
      const unpaid = await api.post(`/v1/bookings/${pending.id}/extend`, { end_at: later });
      expect(unpaid.status).toBe(409);
      expect(unpaid.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'pending_payment' });

      const { booking } = await paidBooking();
      const earlier = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: booking.end_at });
      expect(earlier.status).toBe(422);
      expect(earlier.body.error).toMatchObject({ code: 'parameter_invalid', param: 'end_at' });
      expect((await api.post(`/v1/bookings/${booking.id}/extend`, {})).body.error).toMatchObject({ code: 'parameter_missing', param: 'end_at' });
      await api.post(`/v1/bookings/${booking.id}/cancel`);
      const canceled = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: later });
      expect(canceled.status).toBe(409);
      expect(canceled.body.error.current_state).toMatch(/canceled|refunded/);
    });

    it('brings a late rental extended past the present back to active (booking.extended)', async () => {
      const { booking } = await paidBooking();
      for (const step of ['identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
      expect((await api.post(`/v1/test/bookings/${booking.id}/pickup`, { mileage_out: 100 })).body.state).toBe('active');
      expect((await api.post(`/v1/test/bookings/${booking.id}/make-late`)).body.state).toBe('late');
      const endAt = new Date(new Date(booking.end_at).getTime() + DAY).toISOString();
      const res = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ state: 'active', end_at: endAt, days: 3 });
      expect(await eventTypes(booking.id)).toContain('booking.extended');
      await reconciled(booking.id);
    });
  });

  describe('concurrency', () => {
    it('two updates into the same period of a vehicle: exactly one wins', async () => {
      const vehicle = await createVehicle(api);
      const [a, b] = [await createBooking(api, vehicle.id), await createBooking(api, vehicle.id)];
      const target = nextPeriod(2);
      const answers = await Promise.all([a, b].map((x) => api.post(`/v1/bookings/${x.id}`, target)));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)!.body.error.code).toBe('vehicle_unavailable');
    });

    it('extensions and creations racing for the same days: exactly one wins, and only the winner is charged', async () => {
      const { vehicle, booking } = await paidBooking({ startDays: 80 });
      const extraDays = { start_at: booking.end_at, end_at: new Date(new Date(booking.end_at).getTime() + 2 * DAY).toISOString() };
      const before = scripted.charges.filter((c) => c.idempotencyKey.includes(booking.id)).length;
      const answers = await Promise.all([
        api.post(`/v1/bookings/${booking.id}/extend`, { end_at: extraDays.end_at }),
        ...Array.from({ length: 4 }, () => api.post('/v1/bookings', { vehicle_id: vehicle.id, ...extraDays, customer: { name: 'Grace Hopper', email: 'grace@example.com' } })),
      ]);
      const won = answers.filter((r) => r.status === 200 || r.status === 201);
      expect(won).toHaveLength(1);
      for (const r of answers.filter((x) => !won.includes(x))) expect(r.body.error.code).toBe('vehicle_unavailable');
      const extended = answers[0].status === 200;
      expect(scripted.charges.filter((c) => c.idempotencyKey.includes(booking.id)).length - before).toBe(extended ? 1 : 0);
      expect((await api.get(`/v1/bookings/${booking.id}`)).body.end_at).toBe(extended ? extraDays.end_at : booking.end_at);
      await reconciled(booking.id);
    });
  });
});
