import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { PaymentErrors } from '../src/domain/payments/payment.errors.ts';
import type { PaymentProcessor } from '../src/domain/payments/processor.ts';
import { sandboxProcessor } from '../src/processors/sandbox-processor.ts';

/*
 * Money moving through the public API (the contract's "Money"): checkout, the payment it
 * prepares and the transactions that record every movement, over REST and GraphQL, on both
 * engines. The sandbox stands in only for what the customer and the processor do.
 */
/** The sandbox's processor, whose methods a test can make decline or go unanswered; it keeps the idempotency keys (and amounts) it was sent. */
function scriptedProcessor() {
  const sandbox = sandboxProcessor();
  const script: Partial<Record<Exclude<keyof PaymentProcessor, 'name'>, 'declined' | 'unreachable'>> = {};
  const keys: string[] = [];
  const calls: { name: string; idempotencyKey: string; amountCents?: number; bookingId?: string }[] = [];
  const processor = { ...sandbox, name: 'scripted-sandbox' } as Record<string, unknown>;
  for (const name of ['createPayment', 'refund', 'holdDeposit', 'captureDeposit', 'releaseDeposit', 'chargeOffSession'] as const) {
    processor[name] = async (request: { idempotencyKey: string; amountCents?: number; bookingId?: string }) => {
      keys.push(request.idempotencyKey);
      calls.push({ name, idempotencyKey: request.idempotencyKey, amountCents: request.amountCents, bookingId: request.bookingId });
      if (script[name] === 'declined') throw PaymentErrors.cardDeclined('Your card was declined.');
      if (script[name] === 'unreachable') throw new Error('connect ETIMEDOUT');
      return (sandbox[name] as (r: unknown) => Promise<unknown>)(request);
    };
  }
  return { processor: processor as unknown as PaymentProcessor, script, keys, calls };
}

describe.each(ENGINES)('money on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  let vehicleId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(async () => t?.close());

  it('checks out a pending_payment booking: the answer carries what the customer pays with, the booking holds its vehicle in checkout_started', async () => {
    const booking = await createBooking(api, vehicleId);
    const res = await api.post(`/v1/bookings/${booking.id}/checkout`, undefined, { 'idempotency-key': `co-${booking.id}` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'checkout',
      id: expect.stringMatching(/^cs_/),
      livemode: false,
      booking_id: booking.id,
      payment_id: expect.stringMatching(/^pay_/),
      amount_cents: booking.total_cents,
      currency: 'usd',
      client_secret: expect.stringMatching(/^pi_sandbox_\w+_secret_\w+$/),
      // Never null: in the sandbox, the service's hosted payment page for this booking's checkout.
      url: expect.stringMatching(new RegExp(`^${t.baseUrl}/checkout/${booking.id}\\?payment=pay_[0-9a-z]+&expires=[0-9]+&signature=`)),
      expires_at: booking.hold_expires_at,
      created_at: expect.any(String),
    });
    // A retry with the same key is the same checkout, not a second one.
    const replay = await api.post(`/v1/bookings/${booking.id}/checkout`, undefined, { 'idempotency-key': `co-${booking.id}` });
    expect(replay.body).toEqual(res.body);

    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'checkout_started', hold_expires_at: booking.hold_expires_at });
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ id: res.body.payment_id, state: 'checkout_started', amount_cents: booking.total_cents });
    const events = (await api.get(`/v1/events?booking_id=${booking.id}`)).body.data.map((e: { type: string }) => e.type);
    expect(events).toContain('booking.checkout_started');
    // The secret is the customer's: it is in no event.
    expect(JSON.stringify((await api.get(`/v1/events?booking_id=${booking.id}`)).body)).not.toContain(res.body.client_secret);

    // A second checkout without the key is refused by the booking's state table.
    const again = await api.post(`/v1/bookings/${booking.id}/checkout`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict', code: 'invalid_state_transition', current_state: 'checkout_started' });
  });

  it('records the payment the customer completes as a transaction; the list reconciles with the payment', async () => {
    const booking = await createBooking(api, vehicleId);
    expect((await api.get(`/v1/bookings/${booking.id}/transactions`)).body).toEqual({ object: 'list', data: [], has_more: false, url: `/v1/bookings/${booking.id}/transactions` });
    await api.post(`/v1/bookings/${booking.id}/checkout`);
    expect((await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
    const list = await api.get(`/v1/bookings/${booking.id}/transactions`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { object: 'transaction', id: expect.stringMatching(/^txn_/), livemode: false, booking_id: booking.id, charge_id: null, refunded_transaction_id: null, type: 'payment', status: 'succeeded', amount_cents: booking.total_cents, currency: 'usd', reason: null, created_at: expect.any(String) },
    ]);
    const payment = (await api.get(`/v1/bookings/${booking.id}/payment`)).body;
    expect(payment).toMatchObject({ state: 'succeeded', amount_cents: booking.total_cents });
  });

  it('checks out over GraphQL, with the booking and payment in the same answer, and lists transactions as a connection', async () => {
    const booking = await createBooking(api, vehicleId);
    const res = await gql(
      `mutation($id: ID!) { createCheckout(bookingId: $id) { id bookingId amountCents currency clientSecret url expiresAt booking { state } payment { state } } }`,
      { id: booking.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.createCheckout).toMatchObject({
      id: expect.stringMatching(/^cs_/), bookingId: booking.id, amountCents: booking.total_cents, currency: 'usd', clientSecret: expect.stringMatching(/^pi_sandbox_/), url: expect.stringContaining(`/checkout/${booking.id}?payment=pay_`),
      expiresAt: booking.hold_expires_at, booking: { state: 'checkout_started' }, payment: { state: 'checkout_started' },
    });
    await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`);
    const list = await gql(`query($id: ID!) { bookingTransactions(bookingId: $id, first: 10) { edges { node { type status amountCents } } pageInfo { hasNextPage } } }`, { id: booking.id });
    expect(list.errors).toBeUndefined();
    expect(list.data.bookingTransactions).toEqual({ edges: [{ node: { type: 'payment', status: 'succeeded', amountCents: booking.total_cents } }], pageInfo: { hasNextPage: false } });

    const refused = await gql(`mutation($id: ID!) { createCheckout(bookingId: $id) { id } }`, { id: booking.id });
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'invalid_state_transition', current_state: 'confirmed' });
  });

  it("refuses another business's booking, and live payments while no processor is configured, changing nothing", async () => {
    const booking = await createBooking(api, vehicleId);
    const foreign = await restClient(t.baseUrl, t.other.test_secret_key).post(`/v1/bookings/${booking.id}/checkout`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'resource_missing' });

    const live = restClient(t.baseUrl, t.business.live_secret_key);
    const liveBooking = await createBooking(live, (await createVehicle(live)).id);
    const res = await live.post(`/v1/bookings/${liveBooking.id}/checkout`);
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ type: 'integration_error', code: 'processor_not_configured' });
    expect((await live.get(`/v1/bookings/${liveBooking.id}`)).body).toMatchObject({ state: 'pending_payment' });
    expect((await live.get(`/v1/bookings/${liveBooking.id}/payment`)).body).toMatchObject({ state: 'requires_payment' });
  });
});

describe.each(ENGINES)('refunds on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let vehicleId: string;
  const scripted = scriptedProcessor();

  beforeAll(async () => {
    t = await startTestApp(engine, {}, { processors: { test: scripted.processor, live: scripted.processor } });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(async () => t?.close());

  async function paidBooking() {
    const booking = await createBooking(api, vehicleId);
    expect((await api.post(`/v1/bookings/${booking.id}/checkout`)).status).toBe(201);
    expect((await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
    return booking;
  }

  it('refunds part, refuses more than is left (naming it), refunds the rest by the cancellation policy, then no more', async () => {
    const booking = await paidBooking();
    const total = booking.total_cents as number;
    const part = await api.post(`/v1/bookings/${booking.id}/refund`, { amount_cents: 2500, reason: 'late pickup, goodwill' });
    expect(part.status).toBe(200);
    expect(part.body).toMatchObject({ object: 'payment', state: 'partially_refunded', amount_cents: total, amount_refunded_cents: 2500 });

    const over = await api.post(`/v1/bookings/${booking.id}/refund`, { amount_cents: total });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: 'conflict', code: 'amount_exceeds_available', param: 'amount_cents', available_cents: total - 2500 });

    // No amount: the policy's (the start is days away, inside no cancellation window): all that is left.
    const rest = await api.post(`/v1/bookings/${booking.id}/refund`, {});
    expect(rest.body).toMatchObject({ state: 'refunded', amount_refunded_cents: total });
    const again = await api.post(`/v1/bookings/${booking.id}/refund`, { amount_cents: 1 });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'refunded' });

    const refunds = (await api.get(`/v1/bookings/${booking.id}/transactions`)).body.data.filter((x: { type: string }) => x.type === 'refund');
    expect(refunds.map((x: Record<string, unknown>) => [x.amount_cents, x.status, x.reason]).sort()).toEqual([[2500, 'succeeded', 'late pickup, goodwill'], [total - 2500, 'succeeded', null]].sort());
    const events = (await api.get(`/v1/events?booking_id=${booking.id}&type=payment.refunded`)).body.data;
    expect(events).toHaveLength(2);
  });

  it('refuses a refund of a payment not collected, and bad amounts, naming the param', async () => {
    const booking = await createBooking(api, vehicleId);
    const unpaid = await api.post(`/v1/bookings/${booking.id}/refund`, { amount_cents: 100 });
    expect(unpaid.status).toBe(409);
    expect(unpaid.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'requires_payment' });
    for (const amount_cents of [0, -5, 1.5, '100']) {
      const bad = await api.post(`/v1/bookings/${booking.id}/refund`, { amount_cents });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toMatchObject({ param: 'amount_cents' });
    }
  });

  it('gives the reservation back when the processor fails: 502, the payment as it was, the refund recorded as failed', async () => {
    const booking = await paidBooking();
    scripted.script.refund = 'unreachable';
    try {
      const res = await api.post(`/v1/bookings/${booking.id}/refund`, { amount_cents: 1000 });
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ type: 'integration_error', code: 'processor_unavailable' });
    } finally {
      delete scripted.script.refund;
      delete scripted.script.captureDeposit;
    }
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'succeeded', amount_refunded_cents: 0 });
    const refunds = (await api.get(`/v1/bookings/${booking.id}/transactions`)).body.data.filter((x: { type: string }) => x.type === 'refund');
    expect(refunds).toEqual([expect.objectContaining({ amount_cents: 1000, status: 'failed' })]);
    const types = (await api.get(`/v1/events?booking_id=${booking.id}`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['payment.refunded', 'payment.refund_failed']));
    // The processor back: the same refund goes through.
    expect((await api.post(`/v1/bookings/${booking.id}/refund`, { amount_cents: 1000 })).body).toMatchObject({ state: 'partially_refunded', amount_refunded_cents: 1000 });
  });

  it('refunds over GraphQL, with the booking in the same answer', async () => {
    const booking = await paidBooking();
    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const res = await gql(`mutation($id: ID!) { refundBookingPayment(bookingId: $id, input: { amountCents: 700, reason: "scratch" }) { state amountRefundedCents booking { id } } }`, { id: booking.id });
    expect(res.errors).toBeUndefined();
    expect(res.data.refundBookingPayment).toEqual({ state: 'partially_refunded', amountRefundedCents: 700, booking: { id: booking.id } });
    const over = await gql(`mutation($id: ID!) { refundBookingPayment(bookingId: $id, input: { amountCents: 100000000 }) { state } }`, { id: booking.id });
    expect(over.errors?.[0].extensions).toMatchObject({ code: 'amount_exceeds_available', available_cents: (booking.total_cents as number) - 700 });
  });

  it.runIf(engine === 'postgres')('never refunds more than was paid under 50 concurrent refunds, and one Idempotency-Key moves money once', async () => {
    const booking = await paidBooking();
    const total = booking.total_cents as number;
    const slice = Math.ceil(total / 20); // 50 of them would be 2.5 times the payment
    const answers = await Promise.all(Array.from({ length: 50 }, () => api.post(`/v1/bookings/${booking.id}/refund`, { amount_cents: slice })));
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    const payment = (await api.get(`/v1/bookings/${booking.id}/payment`)).body;
    expect(payment.amount_refunded_cents).toBeLessThanOrEqual(total);
    const succeeded = (await api.get(`/v1/bookings/${booking.id}/transactions?limit=100`)).body.data.filter((x: { type: string; status: string }) => x.type === 'refund' && x.status === 'succeeded');
    expect(succeeded.reduce((sum: number, x: { amount_cents: number }) => sum + x.amount_cents, 0)).toBe(payment.amount_refunded_cents);
    expect(succeeded.length).toBe(answers.filter((a) => a.status === 200).length);

    const other = await paidBooking();
    const once = await Promise.all(Array.from({ length: 50 }, () => api.post(`/v1/bookings/${other.id}/refund`, { amount_cents: 300 }, { 'idempotency-key': `refund-${other.id}` })));
    expect(once.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    expect(once.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    const refunds = (await api.get(`/v1/bookings/${other.id}/transactions`)).body.data.filter((x: { type: string }) => x.type === 'refund');
    expect(refunds).toEqual([expect.objectContaining({ amount_cents: 300, status: 'succeeded' })]);
    expect((await api.get(`/v1/bookings/${other.id}/payment`)).body.amount_refunded_cents).toBe(300);
  });
});

describe.each(ENGINES)('deposits on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let vehicleId: string;
  const scripted = scriptedProcessor();

  beforeAll(async () => {
    t = await startTestApp(engine, {}, { processors: { test: scripted.processor, live: scripted.processor } });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(async () => t?.close());

  /** A paid, verified, signed booking whose deposit the API secures; with `returned`, driven through pickup and return (900 miles: a 17,500 mileage charge). */
  async function bookingWithDeposit(options: { returned?: boolean } = {}) {
    const booking = await createBooking(api, vehicleId);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    const secured = await api.post(`/v1/bookings/${booking.id}/deposit`);
    expect(secured.status).toBe(200);
    let chargeId: string | null = null;
    if (options.returned) {
      expect((await api.post(`/v1/test/bookings/${booking.id}/pickup`, { mileage_out: 1000 })).body).toMatchObject({ state: 'active' });
      const returned = await api.post(`/v1/test/bookings/${booking.id}/return`, { mileage_in: 1900 });
      expect(returned.body).toMatchObject({ state: 'return_in_review' });
      chargeId = returned.body.charge_ids[0];
    }
    return { booking, deposit: secured.body, chargeId };
  }

  const chargeOf = async (bookingId: string, chargeId: string | null) =>
    (await api.get(`/v1/bookings/${bookingId}/charges`)).body.data.find((c: { id: string }) => c.id === chargeId);

  const movements = async (bookingId: string) =>
    (await api.get(`/v1/bookings/${bookingId}/transactions`)).body.data
      .filter((x: { type: string }) => x.type.startsWith('deposit'))
      .map((x: Record<string, unknown>) => [x.type, x.amount_cents, x.status, x.charge_id, x.reason])
      .sort();

  it('secures the deposit through the processor: the gate opens, a hold is recorded, and it cannot be captured before the rental is over', async () => {
    const { booking, deposit } = await bookingWithDeposit();
    expect(deposit).toMatchObject({ object: 'deposit', state: 'secured', amount_cents: 25_000, captured_cents: 0, secured_at: expect.any(String) });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.gates).toMatchObject({ deposit: 'satisfied' });
    expect(await movements(booking.id)).toEqual([['deposit_hold', 25_000, 'succeeded', null, null]]);

    const twice = await api.post(`/v1/bookings/${booking.id}/deposit`);
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'secured' });
    const early = await api.post(`/v1/bookings/${booking.id}/deposit/capture`, { amount_cents: 100 });
    expect(early.status).toBe(409);
    expect(early.body.error.message).toMatch(/rental is not over/);
    expect((await api.post(`/v1/bookings/${booking.id}/deposit/release`)).status).toBe(409);
  });

  it('captures part after the return and lets the rest go; the movements add up to the hold', async () => {
    const { booking } = await bookingWithDeposit({ returned: true });
    const over = await api.post(`/v1/bookings/${booking.id}/deposit/capture`, { amount_cents: 25_001 });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: 'amount_exceeds_available', available_cents: 25_000 });
    const res = await api.post(`/v1/bookings/${booking.id}/deposit/capture`, { amount_cents: 8000, reason: 'bumper scratch' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'partially_captured', captured_cents: 8000 });
    expect(await movements(booking.id)).toEqual(
      [['deposit_capture', 8000, 'succeeded', null, 'bumper scratch'], ['deposit_hold', 25_000, 'succeeded', null, null], ['deposit_release', 17_000, 'succeeded', null, null]].sort(),
    );
    expect((await api.post(`/v1/bookings/${booking.id}/deposit/capture`, { amount_cents: 1 })).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'partially_captured' });
  });

  it('pays a charge from the deposit, refused while the charge is disputed', async () => {
    const disputed = await bookingWithDeposit({ returned: true });
    expect((await api.post(`/v1/test/charges/${disputed.chargeId}/dispute`)).status).toBeLessThan(300);
    const locked = await api.post(`/v1/bookings/${disputed.booking.id}/deposit/capture`, { charge_id: disputed.chargeId });
    expect(locked.status).toBe(409);
    expect(locked.body.error).toMatchObject({ type: 'conflict', code: 'charge_disputed', charge_id: disputed.chargeId });
    expect((await api.get(`/v1/bookings/${disputed.booking.id}/deposit`)).body).toMatchObject({ state: 'secured', captured_cents: 0 });

    const { booking, chargeId } = await bookingWithDeposit({ returned: true });
    const res = await api.post(`/v1/bookings/${booking.id}/deposit/capture`, { charge_id: chargeId });
    expect(res.body).toMatchObject({ state: 'partially_captured', captured_cents: 17_500 });
    expect(await chargeOf(booking.id, chargeId)).toMatchObject({ state: 'succeeded' });
    expect(await movements(booking.id)).toEqual(
      [['deposit_capture', 17_500, 'succeeded', chargeId, null], ['deposit_hold', 25_000, 'succeeded', null, null], ['deposit_release', 7500, 'succeeded', null, null]].sort(),
    );
  });

  it('secures the deposit again when the processor fails the capture; a charge it was paying fails and the booking needs a human', async () => {
    const { booking, chargeId } = await bookingWithDeposit({ returned: true });
    scripted.script.captureDeposit = 'unreachable';
    try {
      const res = await api.post(`/v1/bookings/${booking.id}/deposit/capture`, { charge_id: chargeId });
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ code: 'processor_unavailable' });
    } finally {
      delete scripted.script.refund;
      delete scripted.script.captureDeposit;
    }
    expect((await api.get(`/v1/bookings/${booking.id}/deposit`)).body).toMatchObject({ state: 'secured', captured_cents: 0 });
    expect(await chargeOf(booking.id, chargeId)).toMatchObject({ state: 'failed' });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'problem' });
    expect(await movements(booking.id)).toEqual([['deposit_capture', 17_500, 'failed', chargeId, null], ['deposit_hold', 25_000, 'succeeded', null, null]].sort());
    const types = (await api.get(`/v1/events?booking_id=${booking.id}`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['deposit.captured', 'deposit.capture_failed', 'charge.failed']));
  });

  it.runIf(engine === 'postgres')('50 concurrent captures: with one Idempotency-Key the processor captures once; without keys the captures never exceed the hold', async () => {
    const { booking } = await bookingWithDeposit({ returned: true });
    const before = scripted.keys.filter((k) => k.startsWith('capture:')).length;
    const once = await Promise.all(Array.from({ length: 50 }, () => api.post(`/v1/bookings/${booking.id}/deposit/capture`, { amount_cents: 6000 }, { 'idempotency-key': `cap-${booking.id}` })));
    expect(once.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    expect(once.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    expect(scripted.keys.filter((k) => k.startsWith('capture:')).length - before).toBe(1);
    expect((await movements(booking.id)).filter((m: unknown[]) => m[0] === 'deposit_capture')).toEqual([['deposit_capture', 6000, 'succeeded', null, null]]);

    const raced = await bookingWithDeposit({ returned: true });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => api.post(`/v1/bookings/${raced.booking.id}/deposit/capture`, { amount_cents: 1000 + i })));
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    const captured = (await movements(raced.booking.id)).filter((m: unknown[]) => m[0] === 'deposit_capture' && m[2] === 'succeeded');
    expect(captured).toHaveLength(answers.filter((a) => a.status === 200).length);
    expect(captured.reduce((sum: number, m: unknown[]) => sum + (m[1] as number), 0)).toBeLessThanOrEqual(25_000);
    expect((await api.get(`/v1/bookings/${raced.booking.id}/deposit`)).body.captured_cents).toBe(captured.reduce((sum: number, m: unknown[]) => sum + (m[1] as number), 0));
  });

  it('releases the whole deposit after the return, over GraphQL too', async () => {
    const { booking } = await bookingWithDeposit({ returned: true });
    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const res = await gql(`mutation($id: ID!) { releaseBookingDeposit(bookingId: $id) { state releasedAt booking { id } } }`, { id: booking.id });
    expect(res.errors).toBeUndefined();
    expect(res.data.releaseBookingDeposit).toMatchObject({ state: 'released', releasedAt: expect.any(String), booking: { id: booking.id } });
    expect(await movements(booking.id)).toEqual([['deposit_hold', 25_000, 'succeeded', null, null], ['deposit_release', 25_000, 'succeeded', null, null]]);
    const again = await gql(`mutation($id: ID!) { secureBookingDeposit(bookingId: $id) { state } }`, { id: booking.id });
    expect(again.errors?.[0].extensions).toMatchObject({ code: 'invalid_state_transition', current_state: 'released' });
  });
});

describe.each(ENGINES)('charges on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let vehicleId: string;
  const scripted = scriptedProcessor();

  beforeAll(async () => {
    t = await startTestApp(engine, {}, { processors: { test: scripted.processor, live: scripted.processor } });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(async () => t?.close());

  async function activeBooking() {
    const booking = await createBooking(api, vehicleId);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure', 'pickup']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    return booking;
  }
  const newCharge = async (bookingId: string, amount_cents = 4200) => {
    const res = await api.post(`/v1/bookings/${bookingId}/charges`, { type: 'fuel', amount_cents, description: 'Tank returned a quarter full', metadata: { receipt: 'F-9' } });
    expect(res.status).toBe(201);
    return res.body;
  };

  it('creates a charge once the rental has started, retrieves it, and lists it by booking and by customer', async () => {
    const pending = await createBooking(api, vehicleId);
    const early = await api.post(`/v1/bookings/${pending.id}/charges`, { type: 'fuel', amount_cents: 100, description: 'x' });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'pending_payment' });

    const booking = await activeBooking();
    const charge = await newCharge(booking.id);
    expect(charge).toEqual({
      object: 'charge', id: expect.stringMatching(/^chg_/), livemode: false, booking_id: booking.id, customer_id: booking.customer_id, type: 'fuel', state: 'pending',
      amount_cents: 4200, currency: 'usd', description: 'Tank returned a quarter full', failure_code: null, metadata: { receipt: 'F-9' }, created_at: expect.any(String),
      next_states: ['processing', 'succeeded', 'failed', 'waived', 'disputed'], evidence: [],
    });
    expect((await api.get(`/v1/charges/${charge.id}`)).body).toEqual(charge);
    expect((await api.get(`/v1/customers/${booking.customer_id}/charges`)).body.data.map((c: { id: string }) => c.id)).toContain(charge.id);
    expect((await restClient(t.baseUrl, t.other.test_secret_key).get(`/v1/charges/${charge.id}`)).status).toBe(404);
    for (const bad of [{ type: 'parking', amount_cents: 100, description: 'x' }, { type: 'fuel', amount_cents: 0, description: 'x' }, { type: 'fuel', amount_cents: 100 }]) {
      expect((await api.post(`/v1/bookings/${booking.id}/charges`, bad)).status).toBe(422);
    }
  });

  it('collects a charge; a declined card fails it and puts the booking in problem, and a later attempt collects it', async () => {
    const booking = await activeBooking();
    const charge = await newCharge(booking.id);
    scripted.script.chargeOffSession = 'declined';
    try {
      const declined = await api.post(`/v1/charges/${charge.id}/collect`);
      expect(declined.status).toBe(402);
      expect(declined.body.error).toMatchObject({ type: 'payment_error', code: 'card_declined' });
    } finally {
      delete scripted.script.chargeOffSession;
    }
    expect((await api.get(`/v1/charges/${charge.id}`)).body).toMatchObject({ state: 'failed', failure_code: 'card_declined' });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'problem' });

    const collected = await api.post(`/v1/charges/${charge.id}/collect`);
    expect(collected.status).toBe(200);
    expect(collected.body).toMatchObject({ state: 'succeeded', failure_code: null });
    const movements = (await api.get(`/v1/bookings/${booking.id}/transactions`)).body.data.filter((x: { type: string }) => x.type === 'charge');
    expect(movements.map((x: Record<string, unknown>) => [x.charge_id, x.amount_cents, x.status]).sort()).toEqual([[charge.id, 4200, 'failed'], [charge.id, 4200, 'succeeded']].sort());
    const types = (await api.get(`/v1/events?booking_id=${booking.id}`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['charge.created', 'charge.failed', 'charge.succeeded']));
    expect((await api.post(`/v1/charges/${charge.id}/collect`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'succeeded' });
    expect((await api.post(`/v1/charges/${charge.id}/waive`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'succeeded' });
  });

  it('leaves the charge pending when the processor cannot be reached (502), refuses collection while disputed, and waives', async () => {
    const booking = await activeBooking();
    const charge = await newCharge(booking.id);
    scripted.script.chargeOffSession = 'unreachable';
    try {
      const res = await api.post(`/v1/charges/${charge.id}/collect`);
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ code: 'processor_unavailable' });
    } finally {
      delete scripted.script.chargeOffSession;
    }
    expect((await api.get(`/v1/charges/${charge.id}`)).body).toMatchObject({ state: 'pending' });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'active' });

    const disputed = await newCharge(booking.id, 9900);
    expect((await api.post(`/v1/test/charges/${disputed.id}/dispute`)).status).toBeLessThan(300);
    const locked = await api.post(`/v1/charges/${disputed.id}/collect`);
    expect(locked.status).toBe(409);
    expect(locked.body.error).toMatchObject({ code: 'charge_disputed', charge_id: disputed.id });

    const waived = await api.post(`/v1/charges/${charge.id}/waive`);
    expect(waived.body).toMatchObject({ state: 'waived', next_states: [] });
  });

  it.runIf(engine === 'postgres')('50 concurrent collections of one charge, with one Idempotency-Key or none: the customer is charged once', async () => {
    for (const key of [true, false]) {
      const booking = await activeBooking();
      const charge = await newCharge(booking.id, 3300);
      const before = scripted.keys.filter((k) => k.startsWith(`collect:${charge.id}:`)).length;
      const answers = await Promise.all(Array.from({ length: 50 }, () => api.post(`/v1/charges/${charge.id}/collect`, undefined, key ? { 'idempotency-key': `collect-${charge.id}` } : {})));
      expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
      expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
      expect(scripted.keys.filter((k) => k.startsWith(`collect:${charge.id}:`)).length - before).toBe(1);
      const collected = (await api.get(`/v1/bookings/${booking.id}/transactions`)).body.data.filter((x: { type: string }) => x.type === 'charge');
      expect(collected).toEqual([expect.objectContaining({ amount_cents: 3300, status: 'succeeded', charge_id: charge.id })]);
    }
  });

  it('creates and collects over GraphQL', async () => {
    const booking = await activeBooking();
    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const created = await gql(
      `mutation($id: ID!) { createCharge(bookingId: $id, input: { type: cleaning, amountCents: 3500, description: "Sand everywhere" }) { id state type booking { id } } }`,
      { id: booking.id },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createCharge).toMatchObject({ state: 'pending', type: 'cleaning', booking: { id: booking.id } });
    const collected = await gql(`mutation($id: ID!) { collectCharge(id: $id) { state amountCents } }`, { id: created.data.createCharge.id });
    expect(collected.data.collectCharge).toEqual({ state: 'succeeded', amountCents: 3500 });
    const read = await gql(`query($id: ID!) { charge(id: $id) { state nextStates } }`, { id: created.data.createCharge.id });
    expect(read.data.charge).toEqual({ state: 'succeeded', nextStates: ['disputed'] });
  });
});

describe.each(ENGINES)('disputes on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let vehicleId: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(async () => t?.close());

  async function chargeOnActiveBooking(amount_cents = 12_000) {
    const booking = await createBooking(api, vehicleId);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure', 'pickup']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    const charge = await api.post(`/v1/bookings/${booking.id}/charges`, { type: 'damage', amount_cents, description: 'Scratch on the rear bumper' });
    expect(charge.status).toBe(201);
    return { booking, charge: charge.body };
  }

  it("reads a booking's money in one GraphQL query: payment, deposit, transactions, and charges with their disputes", async () => {
    const { booking, charge } = await chargeOnActiveBooking(4400);
    const dispute = (await api.post(`/v1/charges/${charge.id}/disputes`, { reason: 'not_me' })).body;
    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const res = await gql(
      `query($id: ID!) { booking(id: $id) { payment { state amountCents } deposit { state } transactions { type status amountCents } charges { id state disputes { id state } evidence { fileId } } } }`,
      { id: booking.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.booking).toEqual({
      payment: { state: 'succeeded', amountCents: booking.total_cents },
      deposit: { state: 'secured' },
      transactions: [{ type: 'payment', status: 'succeeded', amountCents: booking.total_cents }, { type: 'deposit_hold', status: 'succeeded', amountCents: 25_000 }],
      charges: [{ id: charge.id, state: 'disputed', disputes: [{ id: dispute.id, state: 'open' }], evidence: [] }],
    });
  });

  it('opens a dispute that locks the charge, lists it by its filters, and closes it: the charge is collectable again', async () => {
    const { booking, charge } = await chargeOnActiveBooking();
    const res = await api.post(`/v1/charges/${charge.id}/disputes`, { reason: 'damage_preexisting', description: 'The scratch is in the pickup photos.', metadata: { ticket: 'Z-3' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'dispute', id: expect.stringMatching(/^dsp_/), livemode: false, charge_id: charge.id, booking_id: booking.id, state: 'open', reason: 'damage_preexisting',
      description: 'The scratch is in the pickup photos.', metadata: { ticket: 'Z-3' }, created_at: expect.any(String), next_states: ['under_review', 'approved', 'closed'], evidence: [],
    });
    const disputeId = res.body.id;
    expect((await api.get(`/v1/charges/${charge.id}`)).body).toMatchObject({ state: 'disputed' });
    expect((await api.post(`/v1/charges/${charge.id}/collect`)).body.error).toMatchObject({ code: 'charge_disputed' });
    expect((await api.post(`/v1/charges/${charge.id}/disputes`, { reason: 'again' })).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'disputed' });

    expect((await api.get(`/v1/disputes/${disputeId}`)).body).toEqual(res.body);
    for (const query of ['state=open', `booking_id=${booking.id}`, `charge_id=${charge.id}`]) {
      expect((await api.get(`/v1/disputes?${query}`)).body.data.map((d: { id: string }) => d.id), query).toContain(disputeId);
    }
    expect((await api.get(`/v1/disputes?state=closed`)).body.data.map((d: { id: string }) => d.id)).not.toContain(disputeId);
    expect((await api.get(`/v1/disputes?state=lost`)).status).toBe(422);

    const closed = await api.post(`/v1/disputes/${disputeId}/close`);
    expect(closed.body).toMatchObject({ state: 'closed', next_states: [] });
    expect((await api.get(`/v1/charges/${charge.id}`)).body).toMatchObject({ state: 'pending' });
    expect((await api.post(`/v1/charges/${charge.id}/collect`)).body).toMatchObject({ state: 'succeeded' });
    expect((await api.post(`/v1/disputes/${disputeId}/approve`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'closed' });
    const types = (await api.get(`/v1/events?booking_id=${booking.id}`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['dispute.created', 'dispute.closed']));
  });

  it('approves a dispute of a collected charge: the charge is waived and its amount refunded, over GraphQL too', async () => {
    const { booking, charge } = await chargeOnActiveBooking(8_800);
    expect((await api.post(`/v1/charges/${charge.id}/collect`)).body).toMatchObject({ state: 'succeeded' });
    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const opened = await gql(`mutation($id: ID!) { createDispute(chargeId: $id, input: { reason: "not_me" }) { id state bookingId charge { state } } }`, { id: charge.id });
    expect(opened.errors).toBeUndefined();
    expect(opened.data.createDispute).toMatchObject({ state: 'open', bookingId: booking.id, charge: { state: 'disputed' } });
    const approved = await gql(`mutation($id: ID!) { approveDispute(id: $id) { state charge { state } } }`, { id: opened.data.createDispute.id });
    expect(approved.errors).toBeUndefined();
    expect(approved.data.approveDispute).toEqual({ state: 'approved', charge: { state: 'waived' } });
    const movements = (await api.get(`/v1/bookings/${booking.id}/transactions`)).body.data.filter((x: { charge_id: string | null }) => x.charge_id === charge.id);
    expect(movements.map((x: Record<string, unknown>) => [x.type, x.amount_cents, x.status]).sort()).toEqual([['charge', 8_800, 'succeeded'], ['refund', 8_800, 'succeeded']].sort());
    const types = (await api.get(`/v1/events?booking_id=${booking.id}`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['dispute.approved', 'charge.waived']));
  });
});

describe.each(ENGINES)('payment retries on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let vehicleId: string;
  const scripted = scriptedProcessor();

  beforeAll(async () => {
    t = await startTestApp(engine, {}, { processors: { test: scripted.processor, live: scripted.processor } });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(async () => t?.close());

  it('retries a failed payment: declined again (402), unreachable (502, the same key next time), then collected and booked', async () => {
    const booking = await createBooking(api, vehicleId);
    expect((await api.post(`/v1/bookings/${booking.id}/payment/retry`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'requires_payment' });
    expect((await api.post(`/v1/test/bookings/${booking.id}/payment/fail`)).status).toBe(402);

    scripted.script.chargeOffSession = 'declined';
    const declined = await api.post(`/v1/bookings/${booking.id}/payment/retry`);
    expect(declined.status).toBe(402);
    expect(declined.body.error).toMatchObject({ code: 'card_declined' });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'pending_payment' });

    scripted.script.chargeOffSession = 'unreachable';
    const unreachable = await api.post(`/v1/bookings/${booking.id}/payment/retry`);
    expect(unreachable.status).toBe(502);
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'failed', failure_code: 'processor_unavailable' });

    delete scripted.script.chargeOffSession;
    const paid = await api.post(`/v1/bookings/${booking.id}/payment/retry`);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ object: 'payment', state: 'succeeded' });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toMatch(/^(booked|confirmed)$/);
    // The unanswered attempt and the one after it reached the processor under one key.
    expect(scripted.keys.slice(-2)[0]).toBe(scripted.keys.slice(-1)[0]);
    expect(new Set(scripted.keys.slice(-3)).size).toBe(2);
    expect((await api.post(`/v1/bookings/${booking.id}/payment/retry`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'succeeded' });
  });

  it.each(['REST', 'GraphQL'] as const)("retries (%s) at a pending booking's new price under a new processor key: the key of an unanswered attempt is never reused for another amount", async (transport) => {
    // A vehicle of its own: the booking's period grows.
    const booking = await createBooking(api, (await createVehicle(api)).id);
    expect((await api.post(`/v1/test/bookings/${booking.id}/payment/fail`)).status).toBe(402);
    const retry = async () => {
      if (transport === 'REST') return (await api.post(`/v1/bookings/${booking.id}/payment/retry`)).status === 200;
      const res = await graphqlClient(t.baseUrl, t.business.test_secret_key)(`mutation($id: ID!) { retryBookingPayment(bookingId: $id) { state amountCents } }`, { id: booking.id });
      return res.errors === undefined && res.data.retryBookingPayment.state === 'succeeded';
    };
    const attempts = () => scripted.calls.filter((c) => c.name === 'chargeOffSession' && c.bookingId === booking.id);

    // An attempt the processor did not answer: its key would be repeated for the same amount.
    scripted.script.chargeOffSession = 'unreachable';
    expect(await retry()).toBe(false);
    delete scripted.script.chargeOffSession;
    expect(attempts().map((c) => c.amountCents)).toEqual([booking.total_cents]);

    // The pending booking's period changes: it is re-priced, and so is its payment.
    const longer = { end_at: new Date(new Date(booking.end_at).getTime() + 2 * 86_400_000).toISOString() };
    const updated = await api.post(`/v1/bookings/${booking.id}`, longer);
    expect(updated.status).toBe(200);
    const newTotal = updated.body.total_cents as number;
    expect(newTotal).toBeGreaterThan(booking.total_cents);
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'failed', amount_cents: newTotal });

    expect(await retry()).toBe(true);
    const [first, second] = attempts();
    expect(second.amountCents).toBe(newTotal);
    expect(second.idempotencyKey).not.toBe(first.idempotencyKey);
    // No key the processor was sent ever carried two amounts.
    const amountsByKey = new Map<string, Set<number | undefined>>();
    for (const c of scripted.calls) amountsByKey.set(c.idempotencyKey, (amountsByKey.get(c.idempotencyKey) ?? new Set()).add(c.amountCents));
    expect([...amountsByKey.values()].filter((amounts) => amounts.size > 1)).toEqual([]);
    // The money collected is the new amount, and the books say so.
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'succeeded', amount_cents: newTotal });
    const paid = (await api.get(`/v1/bookings/${booking.id}/transactions`)).body.data.filter((x: { type: string; status: string }) => x.type === 'payment' && x.status === 'succeeded');
    expect(paid.map((x: { amount_cents: number }) => x.amount_cents)).toEqual([newTotal]);
  });

  it('retries over GraphQL', async () => {
    const booking = await createBooking(api, vehicleId);
    await api.post(`/v1/test/bookings/${booking.id}/payment/fail`);
    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const res = await gql(`mutation($id: ID!) { retryBookingPayment(bookingId: $id) { state booking { state } } }`, { id: booking.id });
    expect(res.errors).toBeUndefined();
    expect(res.data.retryBookingPayment.state).toBe('succeeded');
  });
});
