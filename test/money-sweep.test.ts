import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import type { PaymentProcessor } from '../src/domain/payments/processor.ts';
import { sandboxProcessor } from '../src/processors/sandbox-processor.ts';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/*
 * The money sweep as the API process runs it (its periodic maintenance), with the sandbox's
 * processor of test keys. A request's processor call is held: from the database's point of
 * view the request's process has stopped between the reservation and the settlement. The
 * sweep settles the step from what the sandbox says (it carries out every call); when the held
 * call is finally answered, the request finds the step settled and changes nothing more.
 */
type Method = Exclude<keyof PaymentProcessor, 'name' | 'lookUp'>;

/** The sandbox's processor, whose next call of a method can be held until the test lets it go. */
function holdingProcessor() {
  const sandbox = sandboxProcessor();
  const toHold = new Set<Method>();
  const held: { method: Method; letGo(): void }[] = [];
  const processor = { ...sandbox } as Record<string, unknown>;
  for (const method of ['createPayment', 'refund', 'holdDeposit', 'captureDeposit', 'releaseDeposit', 'chargeOffSession'] as const) {
    processor[method] = (request: unknown) => {
      const call = () => (sandbox[method] as (r: unknown) => Promise<unknown>)(request);
      if (!toHold.delete(method)) return call();
      return new Promise((resolve, reject) => held.push({ method, letGo: () => call().then(resolve, reject) }));
    };
  }
  return {
    processor: processor as unknown as PaymentProcessor,
    holdNext: (method: Method) => toHold.add(method),
    /** Wait for the held call of `method` to be made, then return its release. */
    async heldCall(method: Method) {
      for (let i = 0; i < 400; i++) {
        const index = held.findIndex((h) => h.method === method);
        if (index >= 0) return held.splice(index, 1)[0];
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`no ${method} call was made`);
    },
  };
}

/** Poll until `read` satisfies `done` (the sweep runs every 100 ms, after half a second). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 300 && !done(value); i++) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}

describe.each(ENGINES)('the money sweep of a running API process, on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let holding: ReturnType<typeof holdingProcessor>;

  beforeAll(async () => {
    holding = holdingProcessor();
    t = await startTestApp(engine, { holdSweepMs: 100, processorSweepAfterMs: 500 }, { processors: { test: holding.processor, live: holding.processor } });
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  const events = async (bookingId: string) => ((await api.get(`/v1/events?booking_id=${bookingId}&limit=100`)).body.data as { type: string }[]).map((e) => e.type);
  const count = (types: string[], type: string) => types.filter((t) => t === type).length;
  const transactions = async (bookingId: string) => ((await api.get(`/v1/bookings/${bookingId}/transactions`)).body.data as { type: string; status: string; amount_cents: number }[]).map((x) => [x.type, x.status, x.amount_cents]);
  const paidBooking = async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    expect((await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
    return booking;
  };

  it("settles a cancellation's refund its request left, by itself; the request, answered late, changes nothing more", async () => {
    const booking = await paidBooking();
    holding.holdNext('refund');
    const canceling = api.post(`/v1/bookings/${booking.id}/cancel`);
    const refund = await holding.heldCall('refund');

    const settled = await eventually(() => api.get(`/v1/bookings/${booking.id}`), (b) => b.body.state === 'refunded');
    expect(settled.body.state).toBe('refunded');
    expect(await transactions(booking.id)).toContainEqual(['refund', 'succeeded', booking.total_cents]);

    refund.letGo();
    const answer = await canceling;
    expect(answer.status).toBe(200);
    expect(answer.body.state).toBe('refunded');
    const types = await events(booking.id);
    expect([count(types, 'booking.canceled'), count(types, 'payment.refunded'), count(types, 'payment.refund_failed')]).toEqual([1, 1, 0]);
    expect((await transactions(booking.id)).filter(([type]) => type === 'refund')).toEqual([['refund', 'succeeded', booking.total_cents]]);
    expect(await t.db.prisma.processorCall.count({ where: { bookingId: booking.id } })).toBe(0);
    // The call on record is no object of the API: the request's audit record names the booking's objects only.
    const audit = await t.db.prisma.auditLog.findFirstOrThrow({ where: { requestId: answer.headers.get('request-id')! } });
    expect(audit.objects).toContain(booking.id);
    expect(audit.objects.filter((o) => o.includes(':'))).toEqual([]);
  });

  it("settles a cancellation's release of the deposit's hold its request left", async () => {
    const booking = await paidBooking();
    expect((await api.post(`/v1/bookings/${booking.id}/deposit`)).status).toBe(200);
    holding.holdNext('releaseDeposit');
    const canceling = api.post(`/v1/bookings/${booking.id}/cancel`);
    const release = await holding.heldCall('releaseDeposit');

    const deposit = await eventually(() => api.get(`/v1/bookings/${booking.id}/deposit`), (d) => d.body.state === 'released');
    expect(deposit.body.state).toBe('released');
    release.letGo();
    expect((await canceling).status).toBe(200);
    expect(count(await events(booking.id), 'deposit.released')).toBe(1);
    expect((await transactions(booking.id)).filter(([type]) => type === 'deposit_release')).toEqual([['deposit_release', 'succeeded', 25000]]);
  });

  it("settles an extension its request left between reserving and confirming it: confirmed as the processor says (booking.extended once), and a cancellation then refunds its charge", async () => {
    const booking = await paidBooking();
    const endAt = new Date(new Date(booking.end_at).getTime() + 86_400_000).toISOString();
    holding.holdNext('chargeOffSession');
    const extending = api.post(`/v1/bookings/${booking.id}/extend`, { end_at: endAt });
    const charge = await holding.heldCall('chargeOffSession');
    // Reserved: the new end is held, its transaction pending.
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.end_at).toBe(endAt);
    expect((await transactions(booking.id)).filter(([type]) => type === 'extension').map(([, status]) => status)).toEqual(['pending']);

    const extended = await eventually(() => transactions(booking.id), (rows) => rows.some(([type, status]) => type === 'extension' && status === 'succeeded'));
    const [[, , extra]] = extended.filter(([type]) => type === 'extension');
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ end_at: endAt, total_cents: booking.total_cents + (extra as number) });
    charge.letGo();
    const answer = await extending;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ end_at: endAt, total_cents: booking.total_cents + (extra as number) });
    expect(count(await events(booking.id), 'booking.extended')).toBe(1);
    expect(await t.db.prisma.processorCall.count({ where: { bookingId: booking.id } })).toBe(0);

    // The sweep kept the processor's id of the charge: the cancellation refunds the extension too.
    expect((await api.post(`/v1/bookings/${booking.id}/cancel`)).body.state).toBe('refunded');
    expect((await transactions(booking.id)).filter(([type]) => type === 'refund').sort()).toEqual([['refund', 'succeeded', booking.total_cents], ['refund', 'succeeded', extra]].sort());
  });

  it('settles a payment retry its request left: collected once, the booking booked, payment.succeeded once', async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    expect((await api.post(`/v1/test/bookings/${booking.id}/payment/fail`)).status).toBe(402);
    holding.holdNext('chargeOffSession');
    const retrying = api.post(`/v1/bookings/${booking.id}/payment/retry`);
    const charge = await holding.heldCall('chargeOffSession');
    expect((await api.get(`/v1/bookings/${booking.id}/payment`)).body.state).toBe('processing');

    const payment = await eventually(() => api.get(`/v1/bookings/${booking.id}/payment`), (p) => p.body.state === 'succeeded');
    expect(payment.body.state).toBe('succeeded');
    charge.letGo();
    const answer = await retrying;
    expect(answer.status).toBe(200);
    expect(answer.body.state).toBe('succeeded');
    expect(['booked', 'confirmed']).toContain((await api.get(`/v1/bookings/${booking.id}`)).body.state);
    expect(count(await events(booking.id), 'payment.succeeded')).toBe(1);
    expect((await transactions(booking.id)).filter(([type, status]) => type === 'payment' && status === 'succeeded')).toEqual([['payment', 'succeeded', booking.total_cents]]);
  });
});

describe('PROCESSOR_SWEEP_AFTER_MS', () => {
  it('is refused at start when a live call could still be waiting for Stripe that long', () => {
    expect(loadConfig({}).processorSweepAfterMs).toBe(120_000);
    const stripe = { STRIPE_SECRET_KEY: 'sk_live_example' };
    expect(() => loadConfig({ ...stripe, PROCESSOR_SWEEP_AFTER_MS: '40000' })).toThrow('PROCESSOR_SWEEP_AFTER_MS must be longer than a processor call may take (STRIPE_TIMEOUT_MS × (STRIPE_MAX_NETWORK_RETRIES + 1) = 40000 ms), got 40000');
    expect(loadConfig({ ...stripe, PROCESSOR_SWEEP_AFTER_MS: '20000', STRIPE_TIMEOUT_MS: '5000', STRIPE_MAX_NETWORK_RETRIES: '2' }).processorSweepAfterMs).toBe(20_000);
    // Without Stripe, only the sandbox answers, at once.
    expect(loadConfig({ PROCESSOR_SWEEP_AFTER_MS: '5000' }).processorSweepAfterMs).toBe(5_000);
  });
});
