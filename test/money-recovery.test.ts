import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { tenantDbFactory } from '../src/db/tenant-db.ts';
import { sweepLostProcessorCalls } from '../src/jobs/maintenance.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { reportingProcessors } from '../src/processors/configured.ts';
import { stripeProcessor } from '../src/processors/stripe-processor.ts';
import { buildApp, type App } from '../src/server.ts';
import { ENGINES, restClient } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { spawnServer } from './support/processes.ts';
import { startStripeStandIn, type StandInRequest, type StripeStandIn } from './support/stripe-stand-in.ts';

/*
 * Money a dead process left half-moved (issue: "a refund reserved by a cancellation can stay
 * pending forever"). The API runs as a real child process whose money goes through the
 * Stripe adapter to a stand-in for Stripe on loopback. Each money step is started, and the
 * stand-in holds its processor call: either carried out (the processor moved the money, the
 * answer never came back) or never received. With every call held, the child is killed with
 * SIGKILL, so nothing after the call runs: the reservation is committed, the settlement never
 * happens. A fresh process on the same database then runs the money sweep, which settles
 * each step from what Stripe says, under the call's own idempotency key.
 *
 * Why the stand-in rather than a crash point in the code: the process dies while its call is
 * really at the processor, with no hook in production code, and the stand-in is the witness
 * of what money moved.
 */
const SECRET_KEY = 'sk_test_standin_recovery_51Hx';
const WEBHOOK_SECRET = 'whsec_standin_recovery';
/** The default wait before the sweep takes a call's request for dead. */
const SWEEP_AFTER_MS = 120_000;

type Api = ReturnType<typeof restClient>;
type Performed = 'performed' | 'never received';
const BOTH: Performed[] = ['performed', 'never received'];

interface Step {
  booking: { id: string } & Record<string, any>;
  /** The PaymentIntent the booking was paid with. */
  paidIntent: string;
  performed: Performed;
  holdId?: string;
  chargeId?: string;
  endAt?: string;
  /** The processor's event, as Stripe would deliver it again. */
  event?: object;
}

describe.each(ENGINES)('money a dead process left unsettled, on %s', (engine) => {
  let stripe: StripeStandIn;
  let target: { databaseUrl?: string; dataDir?: string };
  let cleanup: () => Promise<void>;
  let business: CreatedBusiness;
  const steps: Record<'cancel' | 'refund' | 'capture' | 'collect' | 'extend' | 'release' | 'late', Partial<Record<Performed, Step>>> = { cancel: {}, refund: {}, capture: {}, collect: {}, extend: {}, release: {}, late: {} };

  beforeAll(async () => {
    stripe = await startStripeStandIn({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
    if (engine === 'postgres') {
      const pg = await createTestPostgresDatabase();
      target = { databaseUrl: pg.url };
      cleanup = pg.drop;
    } else {
      const dir = await mkdtemp(join(tmpdir(), 'rental-recovery-'));
      target = { dataDir: dir };
      cleanup = () => rm(dir, { recursive: true, force: true });
    }
    // The business exists before the API process starts (the embedded database has one opener at a time).
    const db = await openDatabase(target);
    business = await createBusiness(db.prisma, { name: 'Recovery Rentals' });
    await db.close();

    const child = await spawnServer({
      ...(target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : { DATA_DIR: target.dataDir!, DATABASE_URL: '' }),
      REDIS_URL: '',
      HOLD_SWEEP_MS: '0',
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: stripe.url,
      STRIPE_FOR_TEST_KEYS: '1',
      // The held calls must still be waiting when the process is killed.
      STRIPE_TIMEOUT_MS: '60000',
      STRIPE_MAX_NETWORK_RETRIES: '0',
      RATE_LIMIT_TEST: '100000',
    });
    try {
      const api = restClient(child.baseUrl, business.test_secret_key);
      const deliver = (event: object) => {
        const payload = JSON.stringify(event);
        return fetch(`${child.baseUrl}/v1/processor/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(payload) }, body: payload });
      };
      /** A booking of a vehicle of its own, paid by the customer through Stripe (checkout, then Stripe's event). */
      const paidBooking = async (performed: Performed): Promise<Step> => {
        const vehicle = await createVehicle(api);
        const booking = await createBooking(api, vehicle.id);
        const checkout = await api.post(`/v1/bookings/${booking.id}/checkout`);
        expect(checkout.status).toBe(201);
        const intent = [...stripe.intents.values()].find((i) => i.client_secret === checkout.body.client_secret)!;
        expect((await deliver(stripe.customerPays(intent.id, 'pm_card_visa'))).status).toBe(200);
        return { booking, paidIntent: intent.id, performed };
      };
      /** A paid booking on the road: identity, agreement, the deposit held through Stripe, picked up. */
      const rentalUnderWay = async (performed: Performed): Promise<Step> => {
        const step = await paidBooking(performed);
        const id = step.booking.id;
        for (const sim of ['identity/verify', 'agreement/sign']) expect((await api.post(`/v1/test/bookings/${id}/${sim}`)).status).toBe(200);
        expect((await api.post(`/v1/bookings/${id}/deposit`)).status).toBe(200);
        step.holdId = [...stripe.intents.values()].find((i) => i.metadata.booking_id === id && i.metadata.purpose === 'deposit_hold')!.id;
        expect((await api.post(`/v1/test/bookings/${id}/pickup`, { mileage_out: 1000 })).status).toBe(200);
        return step;
      };

      for (const performed of BOTH) {
        steps.cancel[performed] = await paidBooking(performed);
        steps.refund[performed] = await paidBooking(performed);
        steps.extend[performed] = await paidBooking(performed);
        const capture = await rentalUnderWay(performed);
        expect((await api.post(`/v1/test/bookings/${capture.booking.id}/return`, { mileage_in: 1100 })).status).toBe(200);
        steps.capture[performed] = capture;
        const collect = await rentalUnderWay(performed);
        const charge = await api.post(`/v1/bookings/${collect.booking.id}/charges`, { type: 'cleaning', amount_cents: 4500, description: 'Sand in the boot' });
        expect(charge.status).toBe(201);
        collect.chargeId = charge.body.id;
        steps.collect[performed] = collect;
        // A paid booking holding its deposit: its cancellation refunds, then lets the hold go.
        const release = await paidBooking(performed);
        expect((await api.post(`/v1/bookings/${release.booking.id}/deposit`)).status).toBe(200);
        release.holdId = [...stripe.intents.values()].find((i) => i.metadata.booking_id === release.booking.id && i.metadata.purpose === 'deposit_hold')!.id;
        steps.release[performed] = release;
        // A checkout whose booking is canceled before the customer pays: the late payment goes back.
        const vehicle = await createVehicle(api);
        const late = await createBooking(api, vehicle.id);
        const checkout = await api.post(`/v1/bookings/${late.id}/checkout`);
        expect((await api.post(`/v1/bookings/${late.id}/cancel`)).status).toBe(200);
        steps.late[performed] = { booking: late, paidIntent: [...stripe.intents.values()].find((i) => i.client_secret === checkout.body.client_secret)!.id, performed };
      }

      // Each step's processor call is held at Stripe: carried out, or never received.
      const offSessionOf = (bookingId: string) => (r: StandInRequest) => (r.params.metadata as any)?.booking_id === bookingId && (r.params.metadata as any)?.purpose === 'off_session_charge';
      const started: Promise<unknown>[] = [];
      const start = (path: string, body?: unknown) => started.push(api.post(path, body).catch(() => null));
      for (const performed of BOTH) {
        const processed = performed === 'performed';
        const { cancel, refund, capture, collect, extend } = { cancel: steps.cancel[performed]!, refund: steps.refund[performed]!, capture: steps.capture[performed]!, collect: steps.collect[performed]!, extend: steps.extend[performed]! };
        stripe.hangNext('POST /v1/refunds', processed, (r) => r.params.payment_intent === cancel.paidIntent);
        start(`/v1/bookings/${cancel.booking.id}/cancel`);
        stripe.hangNext('POST /v1/refunds', processed, (r) => r.params.payment_intent === refund.paidIntent);
        start(`/v1/bookings/${refund.booking.id}/refund`, { amount_cents: 1234, reason: 'Goodwill' });
        stripe.hangNext(`POST /v1/payment_intents/${capture.holdId}/capture`, processed);
        start(`/v1/bookings/${capture.booking.id}/deposit/capture`, { amount_cents: 7300, reason: 'Scratched bumper' });
        stripe.hangNext('POST /v1/payment_intents', processed, offSessionOf(collect.booking.id));
        start(`/v1/charges/${collect.chargeId}/collect`);
        extend.endAt = new Date(new Date(extend.booking.end_at).getTime() + 86_400_000).toISOString();
        stripe.hangNext('POST /v1/payment_intents', processed, offSessionOf(extend.booking.id));
        start(`/v1/bookings/${extend.booking.id}/extend`, { end_at: extend.endAt });
        const release = steps.release[performed]!;
        stripe.hangNext(`POST /v1/payment_intents/${release.holdId}/cancel`, processed);
        start(`/v1/bookings/${release.booking.id}/cancel`);
        const late = steps.late[performed]!;
        stripe.hangNext('POST /v1/refunds', processed, (r) => r.params.payment_intent === late.paidIntent);
        late.event = stripe.customerPays(late.paidIntent, 'pm_card_visa');
        started.push(deliver(late.event).catch(() => null));
      }
      for (let i = 0; stripe.hangsLeft() > 0; i++) {
        if (i > 600) throw new Error(`the calls never reached the processor:\n${child.output()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      // Killed with every call at the processor: nothing after a call runs.
      await child.stop('SIGKILL');
    }
  }, 300_000);

  afterAll(async () => {
    await recovery?.close();
    await stripe?.close();
    await cleanup?.();
  });

  let recovery: { app: App; db: Database; api: Api; sweep(realNow: Date): ReturnType<typeof sweepLostProcessorCalls>; close(): Promise<void> } | undefined;
  /** A fresh API process on the same database, with the money sweep its maintenance would run (called here, at a chosen moment). */
  async function recovered() {
    if (recovery) return recovery;
    const db = await openDatabase(target);
    const filesDir = await mkdtemp(join(tmpdir(), 'rental-recovery-files-'));
    const settings = { secretKey: SECRET_KEY, apiUrl: stripe.url, timeoutMs: 5_000, maxNetworkRetries: 0 };
    const processors = { test: stripeProcessor(settings), live: stripeProcessor(settings) };
    const config = { ...loadConfig({}), holdSweepMs: 0, rateLimitTest: 100_000, filesDir, stripe: { ...settings, webhookSecret: WEBHOOK_SECRET } };
    const app = await buildApp({ db, config, processors });
    const server = await app.listen(0, '127.0.0.1');
    const deps = { prisma: db.prisma, tenantDb: tenantDbFactory(db.prisma, undefined, { direct: db.direct }), now: () => new Date(), processors: reportingProcessors(processors), processorSweepAfterMs: SWEEP_AFTER_MS };
    recovery = {
      app,
      db,
      api: restClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, business.test_secret_key),
      sweep: (realNow) => sweepLostProcessorCalls(deps, realNow),
      async close() {
        await app.close();
        await db.close();
        await rm(filesDir, { recursive: true, force: true });
      },
    };
    return recovery;
  }

  const transactionsOf = async (api: Api, bookingId: string) => (await api.get(`/v1/bookings/${bookingId}/transactions`)).body.data as { type: string; status: string; amount_cents: number }[];
  const eventsOf = async (api: Api, bookingId: string) => ((await api.get(`/v1/events?booking_id=${bookingId}&limit=100`)).body.data as { type: string }[]).map((e) => e.type);
  const count = (types: string[], type: string) => types.filter((t) => t === type).length;
  const refundsAt = (intent: string) => [...stripe.refunds.values()].filter((r) => r.payment_intent === intent).map((r) => r.amount);
  const offSessionAt = (bookingId: string) => [...stripe.intents.values()].filter((i) => i.metadata.booking_id === bookingId && i.metadata.purpose === 'off_session_charge');
  const callsWithKey = (key: string) => stripe.requests.filter((r) => r.method === 'POST' && r.idempotencyKey === key);

  /** What GET .../transactions says reconciles with the payment, the deposit and the charges, and nothing is left pending. */
  async function reconciles(api: Api, bookingId: string) {
    const transactions = await transactionsOf(api, bookingId);
    const sum = (type: string) => transactions.filter((x) => x.type === type && x.status === 'succeeded').reduce((s, x) => s + x.amount_cents, 0);
    const payment = (await api.get(`/v1/bookings/${bookingId}/payment`)).body;
    const deposit = (await api.get(`/v1/bookings/${bookingId}/deposit`)).body;
    const charges = (await api.get(`/v1/bookings/${bookingId}/charges`)).body.data as { state: string; amount_cents: number }[];
    expect(transactions.filter((x) => x.status === 'pending')).toEqual([]);
    expect(sum('payment')).toBe(payment.amount_cents);
    expect(sum('refund')).toBe(payment.amount_refunded_cents);
    expect(sum('deposit_capture')).toBe(deposit.captured_cents ?? 0);
    expect(sum('charge')).toBe(charges.filter((c) => c.state === 'succeeded').reduce((s, c) => s + c.amount_cents, 0));
    return transactions;
  }

  it('leaves every step unfinished after the crash: each reservation committed, its transaction pending, its processor call on record', async () => {
    const { api, db } = await recovered();
    for (const performed of BOTH) {
      const { cancel, refund, capture, collect, extend } = { cancel: steps.cancel[performed]!, refund: steps.refund[performed]!, capture: steps.capture[performed]!, collect: steps.collect[performed]!, extend: steps.extend[performed]! };
      expect((await api.get(`/v1/bookings/${cancel.booking.id}`)).body.state).toBe('canceled');
      expect((await transactionsOf(api, cancel.booking.id)).filter((x) => x.type === 'refund').map((x) => x.status)).toEqual(['pending']);
      expect((await transactionsOf(api, refund.booking.id)).filter((x) => x.type === 'refund').map((x) => [x.status, x.amount_cents])).toEqual([['pending', 1234]]);
      expect((await api.get(`/v1/bookings/${capture.booking.id}/deposit`)).body.state).toBe('partially_captured');
      expect((await transactionsOf(api, capture.booking.id)).filter((x) => x.type === 'deposit_capture').map((x) => x.status)).toEqual(['pending']);
      expect((await api.get(`/v1/charges/${collect.chargeId}`)).body.state).toBe('processing');
      expect((await api.get(`/v1/bookings/${extend.booking.id}`)).body.end_at).toBe(extend.endAt);
      expect((await transactionsOf(api, extend.booking.id)).filter((x) => x.type === 'extension').map((x) => x.status)).toEqual(['pending']);
      const release = steps.release[performed]!;
      expect((await api.get(`/v1/bookings/${release.booking.id}`)).body.state).toBe('refunded');
      expect((await api.get(`/v1/bookings/${release.booking.id}/deposit`)).body.state).toBe('secured');
      expect((await api.get(`/v1/bookings/${steps.late[performed]!.booking.id}/payment`)).body.state).toBe('canceled');
    }
    // Seven steps, each twice (the other canceled bookings held no deposit: no release to make).
    expect(await db.prisma.processorCall.count()).toBe(14);
  });

  it('does not take a call for lost while its request could still be alive: a sweep before PROCESSOR_SWEEP_AFTER_MS settles nothing', async () => {
    const { sweep, db } = await recovered();
    expect(await sweep(new Date())).toEqual([]);
    expect(await db.prisma.processorCall.count()).toBe(14);
  });

  it('settles every step from Stripe, once, when two processes sweep side by side', async () => {
    const { sweep, db } = await recovered();
    const later = new Date(Date.now() + SWEEP_AFTER_MS + 60_000);
    const [a, b] = await Promise.all([sweep(later), sweep(later)]);
    const outcomes = [...a, ...b].filter((s) => s.outcome !== 'taken');
    expect(outcomes.map((s) => s.outcome)).toEqual(Array(14).fill('settled'));
    expect(await db.prisma.processorCall.count()).toBe(0);
    expect(await sweep(later)).toEqual([]);
  });

  it.each(BOTH)("a cancellation's refund (Stripe %s): refunded once, the booking ends refunded, the refund's events once", async (performed) => {
    const { api } = await recovered();
    const { booking, paidIntent } = steps.cancel[performed]!;
    expect(refundsAt(paidIntent)).toEqual([booking.total_cents]);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('refunded');
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'refunded', amount_refunded_cents: booking.total_cents });
    const refunds = (await reconciles(api, booking.id)).filter((x) => x.type === 'refund');
    expect(refunds.map((x) => [x.status, x.amount_cents])).toEqual([['succeeded', booking.total_cents]]);
    const events = await eventsOf(api, booking.id);
    expect([count(events, 'booking.canceled'), count(events, 'payment.refunded'), count(events, 'payment.refund_failed')]).toEqual([1, 1, 0]);
    // The sweep's call, when there was one, was the request's call: the same key.
    const key = stripe.requests.find((r) => r.path === '/v1/refunds' && r.params.payment_intent === paidIntent)!.idempotencyKey!;
    expect(callsWithKey(key)).toHaveLength(performed === 'performed' ? 1 : 2);
  });

  it.each(BOTH)('POST .../refund (Stripe %s): refunded once, the payment partially refunded, the transaction succeeded', async (performed) => {
    const { api } = await recovered();
    const { booking, paidIntent } = steps.refund[performed]!;
    expect(refundsAt(paidIntent)).toEqual([1234]);
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body).toMatchObject({ state: 'partially_refunded', amount_refunded_cents: 1234 });
    expect((await reconciles(api, booking.id)).filter((x) => x.type === 'refund').map((x) => [x.status, x.amount_cents])).toEqual([['succeeded', 1234]]);
    const events = await eventsOf(api, booking.id);
    expect([count(events, 'payment.refunded'), count(events, 'payment.refund_failed')]).toEqual([1, 0]);
  });

  it.each(BOTH)('a deposit capture (Stripe %s): captured once, the rest of the hold let go, recorded once', async (performed) => {
    const { api } = await recovered();
    const { booking, holdId } = steps.capture[performed]!;
    expect(stripe.intents.get(holdId!)).toMatchObject({ status: 'succeeded', amount_received: 7300, amount_capturable: 0 });
    expect(stripe.requests.filter((r) => r.path === `/v1/payment_intents/${holdId}/capture`)).toHaveLength(performed === 'performed' ? 1 : 2);
    expect((await api.get(`/v1/bookings/${booking.id}/deposit`)).body).toMatchObject({ state: 'partially_captured', captured_cents: 7300 });
    const moves = (await reconciles(api, booking.id)).filter((x) => x.type.startsWith('deposit_')).map((x) => [x.type, x.status, x.amount_cents]);
    expect(moves.sort()).toEqual([['deposit_capture', 'succeeded', 7300], ['deposit_hold', 'succeeded', 25000], ['deposit_release', 'succeeded', 25000 - 7300]].sort());
    const events = await eventsOf(api, booking.id);
    expect([count(events, 'deposit.captured'), count(events, 'deposit.capture_failed')]).toEqual([1, 0]);
  });

  it('a collection Stripe carried out: the charge succeeded, the customer charged once, charge.succeeded once', async () => {
    const { api } = await recovered();
    const { booking, chargeId } = steps.collect.performed!;
    expect(offSessionAt(booking.id).map((i) => [i.status, i.amount])).toEqual([['succeeded', 4500]]);
    expect((await api.get(`/v1/charges/${chargeId}`)).body.state).toBe('succeeded');
    expect((await reconciles(api, booking.id)).filter((x) => x.type === 'charge').map((x) => [x.status, x.amount_cents])).toEqual([['succeeded', 4500]]);
    expect(count(await eventsOf(api, booking.id), 'charge.succeeded')).toBe(1);
  });

  it('a collection Stripe never received: the charge is pending again, nothing charged; the next collection reaches Stripe under the same key and charges once', async () => {
    const { api } = await recovered();
    const { booking, chargeId } = steps.collect['never received']!;
    expect(offSessionAt(booking.id)).toEqual([]);
    expect((await api.get(`/v1/charges/${chargeId}`)).body.state).toBe('pending');
    expect((await reconciles(api, booking.id)).filter((x) => x.type === 'charge')).toEqual([]);
    expect(count(await eventsOf(api, booking.id), 'charge.succeeded')).toBe(0);

    const collected = await api.post(`/v1/charges/${chargeId}/collect`);
    expect(collected.status).toBe(200);
    expect(collected.body.state).toBe('succeeded');
    const attempts = stripe.requests.filter((r) => r.path === '/v1/payment_intents' && (r.params.metadata as any)?.booking_id === booking.id && (r.params.metadata as any)?.purpose === 'off_session_charge');
    expect(attempts.map((r) => r.idempotencyKey)).toEqual([attempts[0].idempotencyKey, attempts[0].idempotencyKey]);
    expect(offSessionAt(booking.id).map((i) => [i.status, i.amount])).toEqual([['succeeded', 4500]]);
    await reconciles(api, booking.id);
  });

  it('an extension Stripe carried out: confirmed (booking.extended once), its transaction succeeded, the customer charged once', async () => {
    const { api } = await recovered();
    const { booking, endAt } = steps.extend.performed!;
    const extension = (await reconciles(api, booking.id)).filter((x) => x.type === 'extension');
    expect(extension.map((x) => x.status)).toEqual(['succeeded']);
    const extra = extension[0].amount_cents;
    expect(extra).toBeGreaterThan(0);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ end_at: endAt, total_cents: booking.total_cents + extra });
    expect(offSessionAt(booking.id).map((i) => [i.status, i.amount])).toEqual([['succeeded', extra]]);
    expect(count(await eventsOf(api, booking.id), 'booking.extended')).toBe(1);

    // The sweep kept the charge's PaymentIntent on the extension: a cancellation refunds it there.
    expect((await api.post(`/v1/bookings/${booking.id}/cancel`)).body.state).toBe('refunded');
    expect(refundsAt(offSessionAt(booking.id)[0].id)).toEqual([extra]);
    expect(refundsAt(steps.extend.performed!.paidIntent)).toEqual([booking.total_cents]);
  });

  it('an extension Stripe never received: released, the booking keeps its end, nothing charged; extending again reaches Stripe under the same key and charges once', async () => {
    const { api } = await recovered();
    const { booking, endAt } = steps.extend['never received']!;
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ end_at: booking.end_at, total_cents: booking.total_cents });
    expect(offSessionAt(booking.id)).toEqual([]);
    const extension = (await reconciles(api, booking.id)).filter((x) => x.type === 'extension');
    expect(extension.map((x) => x.status)).toEqual(['failed']);
    const extra = extension[0].amount_cents;
    expect(count(await eventsOf(api, booking.id), 'booking.extended')).toBe(0);

    const again = await api.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ end_at: endAt, total_cents: booking.total_cents + extra });
    const attempts = stripe.requests.filter((r) => r.path === '/v1/payment_intents' && (r.params.metadata as any)?.booking_id === booking.id && (r.params.metadata as any)?.purpose === 'off_session_charge');
    expect(attempts.map((r) => r.idempotencyKey)).toEqual([attempts[0].idempotencyKey, attempts[0].idempotencyKey]);
    expect(offSessionAt(booking.id).map((i) => [i.status, i.amount])).toEqual([['succeeded', extra]]);
    expect(count(await eventsOf(api, booking.id), 'booking.extended')).toBe(1);
    await reconciles(api, booking.id);
  });

  it.each(BOTH)("a cancellation's release of the deposit's hold (Stripe %s): let go once, deposit.released once", async (performed) => {
    const { api } = await recovered();
    const { booking, holdId } = steps.release[performed]!;
    expect(stripe.intents.get(holdId!)!.status).toBe('canceled');
    expect(stripe.requests.filter((r) => r.path === `/v1/payment_intents/${holdId}/cancel`)).toHaveLength(performed === 'performed' ? 1 : 2);
    expect((await api.get(`/v1/bookings/${booking.id}/deposit`)).body.state).toBe('released');
    const moves = (await reconciles(api, booking.id)).filter((x) => x.type.startsWith('deposit_')).map((x) => [x.type, x.status, x.amount_cents]);
    expect(moves.sort()).toEqual([['deposit_hold', 'succeeded', 25000], ['deposit_release', 'succeeded', 25000]].sort());
    expect(count(await eventsOf(api, booking.id), 'deposit.released')).toBe(1);
  });

  it.each(BOTH)('a payment that arrived after its booking was canceled (Stripe %s): given back once, however often Stripe delivers the event again', async (performed) => {
    const { api, app } = await recovered();
    const { booking, paidIntent, event } = steps.late[performed]!;
    expect(refundsAt(paidIntent)).toEqual([booking.total_cents]);
    const payload = JSON.stringify(event);
    const again = await app.handle(new Request('http://recovery/v1/processor/stripe/webhook', { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(payload) }, body: payload }));
    expect([again.status, await again.text()]).toEqual([200, expect.stringContaining('duplicate')]);
    expect(refundsAt(paidIntent)).toEqual([booking.total_cents]);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('canceled');
  });
});
