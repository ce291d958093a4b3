import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { startStripeStandIn, type StripeStandIn, type TestCard } from './support/stripe-stand-in.ts';
import { stripeProcessor } from '../src/processors/stripe-processor.ts';

/*
 * Money through the Stripe adapter (the official `stripe` SDK) against a stand-in for
 * Stripe's API on loopback, through the public API: checkout, the customer's payment arriving
 * as a signed Stripe event, deposit holds, captures and releases, refunds, off-session
 * charges, a declined card and an unanswered call. The trip itself (pickup, return) is driven
 * by the sandbox, with test keys served by the same adapter.
 */
const SECRET_KEY = 'sk_test_standin_4eC39HqLyjWDarjtT1zdp7dc';
const WEBHOOK_SECRET = 'whsec_standin_secret';

describe.each(ENGINES)('the Stripe adapter on %s', (engine) => {
  let t: TestApp;
  let stripe: StripeStandIn;
  let live: ReturnType<typeof restClient>;
  let test: ReturnType<typeof restClient>;
  let liveVehicle: string;
  let testVehicle: string;

  beforeAll(async () => {
    stripe = await startStripeStandIn({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
    const settings = { secretKey: SECRET_KEY, apiUrl: stripe.url, timeoutMs: 1_000, maxNetworkRetries: 0 };
    // Both environments on the adapter, so sandbox keys can drive the trip between the money steps.
    t = await startTestApp(
      engine,
      { stripe: { ...settings, webhookSecret: WEBHOOK_SECRET } },
      { processors: { test: stripeProcessor(settings), live: stripeProcessor(settings) } },
    );
    live = restClient(t.baseUrl, t.business.live_secret_key);
    test = restClient(t.baseUrl, t.business.test_secret_key);
    liveVehicle = (await createVehicle(live)).id;
    testVehicle = (await createVehicle(test)).id;
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  /** Stripe delivering an event to the service, signed as Stripe signs it. */
  function deliver(event: object, signature?: string) {
    const payload = JSON.stringify(event);
    return fetch(`${t.baseUrl}/v1/processor/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature ?? stripe.sign(payload) },
      body: payload,
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  }

  /** A booking checked out and paid by the customer with `card`; Stripe's event delivered. */
  async function paidBooking(api: typeof live, vehicleId: string, card: TestCard = 'pm_card_visa') {
    const booking = await createBooking(api, vehicleId);
    const checkout = await api.post(`/v1/bookings/${booking.id}/checkout`);
    expect(checkout.status).toBe(201);
    const event = stripe.customerPays(intentOfCheckout(checkout.body.client_secret).id, card);
    const delivered = await deliver(event);
    expect(delivered.status).toBe(200);
    return { booking, checkout: checkout.body, event };
  }

  const intentOfCheckout = (clientSecret: string) => [...stripe.intents.values()].find((i) => i.client_secret === clientSecret)!;

  it("checks out on a Stripe PaymentIntent that saves the customer's card, and the customer's payment, arriving as Stripe's signed event, books the booking once however often it is delivered", async () => {
    const booking = await createBooking(live, liveVehicle);
    const checkout = await live.post(`/v1/bookings/${booking.id}/checkout`, undefined, { 'idempotency-key': `co-${booking.id}` });
    expect(checkout.status).toBe(201);
    const intent = intentOfCheckout(checkout.body.client_secret);
    expect(intent).toMatchObject({ amount: booking.total_cents, currency: 'usd', setup_future_usage: 'off_session', status: 'requires_payment_method', metadata: { booking_id: booking.id, purpose: 'rental_payment' } });
    expect(intent.customer).toMatch(/^cus_/);
    const created = stripe.requests.find((r) => r.path === '/v1/payment_intents' && r.params.metadata && (r.params.metadata as any).booking_id === booking.id)!;
    expect(created.idempotencyKey).toMatch(new RegExp(`^checkout:pay_\\w+:co-${booking.id}$`));

    const event = stripe.customerPays(intent.id, 'pm_card_visa');
    // Stripe may deliver an event more than once, even at the same moment.
    const deliveries = await Promise.all(Array.from({ length: 6 }, () => deliver(event)));
    expect(deliveries.map((d) => d.status)).toEqual(Array(6).fill(200));
    expect(deliveries.map((d) => d.body.outcome).sort()).toEqual(['applied', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
    expect(deliveries[0].body).toMatchObject({ object: 'processor_event', id: event.id, type: 'payment_intent.succeeded', booking_id: booking.id });
    expect((await deliver(event)).body.outcome).toBe('duplicate');

    const after = await live.get(`/v1/bookings/${booking.id}`);
    expect(['booked', 'confirmed']).toContain(after.body.state);
    expect((await live.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'succeeded', amount_cents: booking.total_cents });
    const transactions = (await live.get(`/v1/bookings/${booking.id}/transactions`)).body.data;
    expect(transactions.map((x: any) => [x.type, x.status, x.amount_cents])).toEqual([['payment', 'succeeded', booking.total_cents]]);
    const events = (await live.get(`/v1/events?type=payment.succeeded&limit=100`)).body.data.filter((e: any) => e.data.object.id === booking.id || e.booking_id === booking.id);
    expect(events).toHaveLength(1);
  });

  it('gives back a payment that arrives after its booking was canceled (a hold that expired, a customer who paid late), once', async () => {
    const booking = await createBooking(live, liveVehicle);
    const checkout = await live.post(`/v1/bookings/${booking.id}/checkout`);
    expect((await live.post(`/v1/bookings/${booking.id}/cancel`)).body.state).toBe('canceled');
    const intent = intentOfCheckout(checkout.body.client_secret);
    const event = stripe.customerPays(intent.id, 'pm_card_visa');
    const first = await deliver(event);
    expect(first).toMatchObject({ status: 200, body: { outcome: 'refunded: the payment arrived after the booking was canceled', booking_id: booking.id } });
    expect((await deliver(event)).body.outcome).toBe('duplicate');
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === intent.id).map((r) => r.amount)).toEqual([booking.total_cents]);
    expect((await live.get(`/v1/bookings/${booking.id}`)).body.state).toBe('canceled');
  });

  it('refuses an event whose signature does not verify (another secret, a changed body, no header, too old): 400 webhook_signature_invalid, nothing applied', async () => {
    const booking = await createBooking(live, liveVehicle);
    const checkout = await live.post(`/v1/bookings/${booking.id}/checkout`);
    const event = stripe.customerPays(intentOfCheckout(checkout.body.client_secret).id, 'pm_card_visa');
    const payload = JSON.stringify(event);
    const forged = [
      stripe.sign(payload, 'whsec_someone_else'),
      stripe.sign(payload.replace('"succeeded"', '"processing"')),
      '',
      stripe.sign(payload, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 3600),
    ];
    for (const signature of forged) {
      const res = await deliver(event, signature);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'webhook_signature_invalid', request_id: expect.any(String) });
    }
    expect((await live.get(`/v1/bookings/${booking.id}`)).body.state).toBe('checkout_started');
    // Signed, but about nothing of ours (no object at all): acknowledged and ignored.
    const empty = JSON.stringify({ id: 'evt_empty_1', object: 'event', type: 'payment_intent.succeeded' });
    const ignored = await deliver(JSON.parse(empty), stripe.sign(empty));
    expect(ignored).toMatchObject({ status: 200, body: { outcome: expect.stringMatching(/^ignored: /) } });
    const wrongMethod = await fetch(`${t.baseUrl}/v1/processor/stripe/webhook`);
    expect(wrongMethod.status).toBe(405);
    expect((await deliver(event)).body.outcome).toBe('applied');
  });

  it("a declined checkout payment (payment_intent.payment_failed) returns the booking to pending_payment with the decline's code; a retry on the same card is declined again: 402 card_declined", async () => {
    const booking = await createBooking(live, liveVehicle);
    const checkout = await live.post(`/v1/bookings/${booking.id}/checkout`);
    const event = stripe.customerPays(intentOfCheckout(checkout.body.client_secret).id, 'pm_card_chargeDeclined');
    expect(event.type).toBe('payment_intent.payment_failed');
    expect((await deliver(event)).body.outcome).toBe('applied');
    expect((await live.get(`/v1/bookings/${booking.id}`)).body.state).toBe('pending_payment');
    expect((await live.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'failed', failure_code: 'generic_decline' });

    const retry = await live.post(`/v1/bookings/${booking.id}/payment/retry`);
    expect(retry.status).toBe(402);
    expect(retry.body.error).toMatchObject({ type: 'payment_error', code: 'card_declined' });
    expect(retry.body.error.message).toContain('Your card was declined.');
    expect((await live.get(`/v1/bookings/${booking.id}/payment`)).body.state).toBe('failed');
  });

  it("holds the deposit on the card the booking was paid with, collects a post-trip charge off-session, captures part of the deposit and refunds part of the payment: each a Stripe call under the domain's idempotency key, every amount to the cent", async () => {
    const { booking, checkout } = await paidBooking(test, testVehicle);
    const paidIntent = intentOfCheckout(checkout.client_secret);
    for (const step of ['identity/verify', 'agreement/sign']) expect((await test.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);

    const deposit = await test.post(`/v1/bookings/${booking.id}/deposit`, undefined, { 'idempotency-key': `dep-${booking.id}` });
    expect(deposit.status).toBe(200);
    expect(deposit.body).toMatchObject({ state: 'secured', amount_cents: 25000 });
    const hold = [...stripe.intents.values()].find((i) => i.metadata.booking_id === booking.id && i.metadata.purpose === 'deposit_hold')!;
    expect(hold).toMatchObject({ amount: 25000, capture_method: 'manual', status: 'requires_capture', customer: paidIntent.customer, payment_method: 'pm_card_visa' });

    expect((await test.post(`/v1/test/bookings/${booking.id}/pickup`, { mileage_out: 1000 })).status).toBe(200);
    expect((await test.post(`/v1/test/bookings/${booking.id}/return`, { mileage_in: 1100 })).status).toBe(200);

    const charge = await test.post(`/v1/bookings/${booking.id}/charges`, { type: 'cleaning', amount_cents: 4500, description: 'Sand in the boot' });
    expect(charge.status).toBe(201);
    const collected = await test.post(`/v1/charges/${charge.body.id}/collect`);
    expect(collected.status).toBe(200);
    expect(collected.body.state).toBe('succeeded');
    const offSession = [...stripe.intents.values()].find((i) => i.metadata.booking_id === booking.id && i.metadata.purpose === 'off_session_charge')!;
    expect(offSession).toMatchObject({ amount: 4500, status: 'succeeded', customer: paidIntent.customer, payment_method: 'pm_card_visa' });

    const capture = await test.post(`/v1/bookings/${booking.id}/deposit/capture`, { amount_cents: 7300, reason: 'Scratched bumper' });
    expect(capture.status).toBe(200);
    expect(capture.body).toMatchObject({ state: 'partially_captured' });
    // Stripe takes the part and lets the rest of the hold go.
    expect(stripe.intents.get(hold.id)).toMatchObject({ status: 'succeeded', amount_received: 7300, amount_capturable: 0 });

    const refund = await test.post(`/v1/bookings/${booking.id}/refund`, { amount_cents: 1234, reason: 'Goodwill' });
    expect(refund.status).toBe(200);
    const refunds = [...stripe.refunds.values()].filter((r) => r.payment_intent === paidIntent.id);
    expect(refunds.map((r) => r.amount)).toEqual([1234]);

    const calls = stripe.requests.filter((r) => r.method === 'POST' && [hold.id, offSession.id, paidIntent.id].some((id) => r.raw.includes(id) || r.path.includes(id)));
    expect(calls.every((r) => r.idempotencyKey)).toBe(true);
    const transactions = (await test.get(`/v1/bookings/${booking.id}/transactions`)).body.data;
    expect(transactions.map((x: any) => [x.type, x.status, x.amount_cents]).sort()).toEqual(
      [
        ['charge', 'succeeded', 4500],
        ['deposit_capture', 'succeeded', 7300],
        ['deposit_hold', 'succeeded', 25000],
        ['deposit_release', 'succeeded', 25000 - 7300],
        ['payment', 'succeeded', booking.total_cents],
        ['refund', 'succeeded', 1234],
      ].sort(),
    );
  });

  it("cancels a paid booking through Stripe: the payment is refunded as the cancellation policy allows and the deposit's hold is let go, so the booking ends refunded", async () => {
    const { booking, checkout } = await paidBooking(test, testVehicle);
    expect((await test.post(`/v1/bookings/${booking.id}/deposit`)).status).toBe(200);
    const hold = [...stripe.intents.values()].find((i) => i.metadata.booking_id === booking.id && i.metadata.purpose === 'deposit_hold')!;
    const canceled = await test.post(`/v1/bookings/${booking.id}/cancel`, { reason: 'Plans changed' });
    expect(canceled.status).toBe(200);
    expect(canceled.body.state).toBe('refunded');
    expect(stripe.intents.get(hold.id)!.status).toBe('canceled');
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === intentOfCheckout(checkout.client_secret).id).map((r) => r.amount)).toEqual([booking.total_cents]);
    expect((await test.get(`/v1/bookings/${booking.id}/deposit`)).body.state).toBe('released');
    expect((await test.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'refunded', amount_refunded_cents: booking.total_cents });
    expect((await test.post(`/v1/bookings/${booking.id}/deposit/release`)).status).toBe(409);
  });

  it("cancels an extended booking through Stripe: the payment and the extension's off-session charge are each refunded against their own PaymentIntent, for what each took", async () => {
    // A vehicle of its own: the booking's period grows.
    const { booking, checkout } = await paidBooking(test, (await createVehicle(test)).id);
    const endAt = new Date(new Date(booking.end_at).getTime() + 86_400_000).toISOString();
    const extended = await test.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt });
    expect(extended.status).toBe(200);
    const extra = extended.body.total_cents - booking.total_cents;
    const extensionIntent = [...stripe.intents.values()].find((i) => i.metadata.booking_id === booking.id && i.metadata.purpose === 'off_session_charge')!;
    expect(extensionIntent).toMatchObject({ amount: extra, status: 'succeeded' });

    const canceled = await test.post(`/v1/bookings/${booking.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.state).toBe('refunded');
    // Stripe refuses a refund beyond what a PaymentIntent took: each refund is of its own charge.
    const refundsOf = (intent: string) => [...stripe.refunds.values()].filter((r) => r.payment_intent === intent).map((r) => r.amount);
    expect(refundsOf(intentOfCheckout(checkout.client_secret).id)).toEqual([booking.total_cents]);
    expect(refundsOf(extensionIntent.id)).toEqual([extra]);
    const transactions = (await test.get(`/v1/bookings/${booking.id}/transactions`)).body.data;
    const extension = transactions.find((x: any) => x.type === 'extension');
    expect(transactions.filter((x: any) => x.type === 'refund').map((x: any) => [x.refunded_transaction_id, x.status, x.amount_cents]).sort()).toEqual(
      [
        [null, 'succeeded', booking.total_cents],
        [extension.id, 'succeeded', extra],
      ].sort(),
    );
    expect((await test.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'refunded', amount_refunded_cents: booking.total_cents });
  });

  it('cancels a paid booking while Stripe does not answer: the booking is canceled and frees its vehicle, the refund is given back (payment.refund_failed) and a later refund ends it refunded', async () => {
    const { booking, checkout } = await paidBooking(test, testVehicle);
    stripe.hangNext('POST /v1/refunds');
    const canceled = await test.post(`/v1/bookings/${booking.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.state).toBe('canceled');
    expect((await test.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'succeeded', amount_refunded_cents: 0 });
    const transactions = (await test.get(`/v1/bookings/${booking.id}/transactions`)).body.data;
    expect(transactions.filter((x: any) => x.type === 'refund').map((x: any) => [x.status, x.amount_cents])).toEqual([['failed', booking.total_cents]]);
    const refundFailed = (await test.get('/v1/events?type=payment.refund_failed&limit=100')).body.data.filter((e: any) => e.data.object.booking_id === booking.id);
    expect(refundFailed).toHaveLength(1);

    const refund = await test.post(`/v1/bookings/${booking.id}/refund`);
    expect(refund.status).toBe(200);
    expect((await test.get(`/v1/bookings/${booking.id}`)).body.state).toBe('refunded');
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === intentOfCheckout(checkout.client_secret).id).map((r) => r.amount)).toEqual([booking.total_cents]);
  });

  it('a card Stripe declines off-session: the deposit hold answers 402 card_declined and the deposit is failed, with nothing held', async () => {
    const { booking } = await paidBooking(test, testVehicle, 'pm_card_declinedOffSession');
    const res = await test.post(`/v1/bookings/${booking.id}/deposit`);
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ type: 'payment_error', code: 'card_declined' });
    expect((await test.get(`/v1/bookings/${booking.id}/deposit`)).body.state).toBe('failed');
    const transactions = (await test.get(`/v1/bookings/${booking.id}/transactions`)).body.data;
    expect(transactions.filter((x: any) => x.type === 'deposit_hold' && x.status === 'succeeded')).toEqual([]);
  });

  it("an answer Stripe never sends (the call carried out, the answer lost): 502 processor_unavailable, the charge pending and nothing recorded; the retry reaches Stripe under the same idempotency key and the customer pays once", async () => {
    const { booking } = await paidBooking(test, testVehicle);
    for (const step of ['identity/verify', 'agreement/sign']) await test.post(`/v1/test/bookings/${booking.id}/${step}`);
    await test.post(`/v1/bookings/${booking.id}/deposit`);
    await test.post(`/v1/test/bookings/${booking.id}/pickup`, { mileage_out: 10 });
    const charge = (await test.post(`/v1/bookings/${booking.id}/charges`, { type: 'fuel', amount_cents: 6100, description: 'Tank half empty' })).body;

    stripe.hangNext('POST /v1/payment_intents', true);
    const lost = await test.post(`/v1/charges/${charge.id}/collect`);
    expect(lost.status).toBe(502);
    expect(lost.body.error).toMatchObject({ type: 'integration_error', code: 'processor_unavailable' });
    expect((await test.get(`/v1/charges/${charge.id}`)).body.state).toBe('pending');
    expect((await test.get(`/v1/bookings/${booking.id}/transactions`)).body.data.filter((x: any) => x.type === 'charge')).toEqual([]);

    const retried = await test.post(`/v1/charges/${charge.id}/collect`);
    expect(retried.status).toBe(200);
    expect(retried.body.state).toBe('succeeded');
    const attempts = stripe.requests.filter((r) => r.path === '/v1/payment_intents' && (r.params.metadata as any)?.purpose === 'off_session_charge' && (r.params.metadata as any)?.booking_id === booking.id);
    expect(attempts).toHaveLength(2);
    expect(attempts[0].idempotencyKey).toBe(attempts[1].idempotencyKey);
    expect([...stripe.intents.values()].filter((i) => i.metadata.booking_id === booking.id && i.metadata.purpose === 'off_session_charge')).toHaveLength(1);
  });

  it('never lets a Stripe secret, a client secret or a card reach an event or a row of the API', async () => {
    const { booking } = await paidBooking(live, liveVehicle);
    const everything = JSON.stringify([
      (await live.get('/v1/events?limit=100')).body,
      (await live.get(`/v1/bookings/${booking.id}`)).body,
      (await live.get(`/v1/bookings/${booking.id}/payment`)).body,
      (await live.get(`/v1/bookings/${booking.id}/transactions`)).body,
    ]);
    expect(everything).not.toContain(SECRET_KEY);
    expect(everything).not.toContain(WEBHOOK_SECRET);
    expect(everything).not.toMatch(/_secret_/);
    expect(everything).not.toMatch(/\b4242424242424242\b/);
  });
});
