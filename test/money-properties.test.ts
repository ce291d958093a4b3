import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/*
 * Random sequences of money actions through the public API (refunds, charges, collections,
 * waivers, disputes and their outcomes, the return, deposit captures and releases), after each
 * of which the books must balance: the payment's refunded amount is its refund transactions',
 * the deposit's captured amount its capture transactions', nothing exceeds what was there, and
 * every collected charge is collected once. Refusals (409, 422) are expected along the way;
 * anything else is a failure.
 */

type Action =
  | { kind: 'refund'; amount: number }
  | { kind: 'charge'; amount: number }
  | { kind: 'collect' | 'waive' | 'dispute'; pick: number }
  | { kind: 'approve' | 'close'; pick: number }
  | { kind: 'return' }
  | { kind: 'capture'; amount: number | null; pick: number | null }
  | { kind: 'release' };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('refund' as const), amount: fc.integer({ min: 1, max: 6000 }) }),
  fc.record({ kind: fc.constant('charge' as const), amount: fc.integer({ min: 1, max: 20_000 }) }),
  fc.record({ kind: fc.constantFrom('collect' as const, 'waive' as const, 'dispute' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constantFrom('approve' as const, 'close' as const), pick: fc.nat() }),
  fc.constant({ kind: 'return' as const }),
  fc.record({ kind: fc.constant('capture' as const), amount: fc.option(fc.integer({ min: 1, max: 30_000 })), pick: fc.option(fc.nat()) }),
  fc.constant({ kind: 'release' as const }),
);

describe('money properties on pglite', () => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let vehicleId: string;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    api = restClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(async () => t?.close());

  async function balanced(bookingId: string) {
    const [payment, deposit, charges, transactions] = await Promise.all([
      api.get(`/v1/bookings/${bookingId}/payment`).then((r) => r.body),
      api.get(`/v1/bookings/${bookingId}/deposit`).then((r) => r.body),
      api.get(`/v1/bookings/${bookingId}/charges?limit=100`).then((r) => r.body.data as Record<string, any>[]),
      api.get(`/v1/bookings/${bookingId}/transactions?limit=100`).then((r) => r.body.data as Record<string, any>[]),
    ]);
    const sum = (rows: Record<string, any>[]) => rows.reduce((s, x) => s + (x.amount_cents as number), 0);
    const succeeded = (type: string, chargeId?: string | null) =>
      transactions.filter((x) => x.type === type && x.status === 'succeeded' && (chargeId === undefined || x.charge_id === chargeId));

    expect(transactions.filter((x) => x.status === 'pending'), 'nothing left pending').toEqual([]);
    expect(payment.amount_refunded_cents).toBe(sum(succeeded('refund', null)));
    expect(payment.amount_refunded_cents).toBeLessThanOrEqual(payment.amount_cents);
    expect(deposit.captured_cents).toBe(sum(succeeded('deposit_capture')));
    expect(deposit.captured_cents).toBeLessThanOrEqual(deposit.amount_cents);
    if (deposit.state === 'partially_captured') expect(deposit.captured_cents + sum(succeeded('deposit_release'))).toBe(deposit.amount_cents);
    if (deposit.state === 'released') expect(sum(succeeded('deposit_release'))).toBe(deposit.amount_cents);
    for (const charge of charges) {
      const collections = [...succeeded('charge', charge.id), ...succeeded('deposit_capture', charge.id)];
      const refunded = sum(succeeded('refund', charge.id));
      if (charge.state === 'succeeded') expect(collections, `charge ${charge.id} collected once`).toHaveLength(1);
      if (charge.state === 'pending' || charge.state === 'failed') expect(collections, `charge ${charge.id} not collected`).toHaveLength(0);
      expect(refunded, `charge ${charge.id} refunded at most what was collected`).toBeLessThanOrEqual(sum(collections));
    }
  }

  it('keeps the payment, the deposit and the charges reconciled with their transactions, whatever the order of actions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 4, maxLength: 14 }), async (actions) => {
        const booking = await createBooking(api, vehicleId);
        for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign']) await api.post(`/v1/test/bookings/${booking.id}/${step}`);
        await api.post(`/v1/bookings/${booking.id}/deposit`);
        await api.post(`/v1/test/bookings/${booking.id}/pickup`, { mileage_out: 1000 });
        const charges: string[] = [];
        const disputes: string[] = [];
        const pick = <T,>(list: T[], n: number | null) => (list.length && n !== null ? list[n % list.length] : undefined);
        for (const a of actions) {
          let res: { status: number; body: any } | null = null;
          if (a.kind === 'refund') res = await api.post(`/v1/bookings/${booking.id}/refund`, { amount_cents: a.amount });
          else if (a.kind === 'charge') {
            res = await api.post(`/v1/bookings/${booking.id}/charges`, { type: 'damage', amount_cents: a.amount, description: 'property test' });
            if (res.status === 201) charges.push(res.body.id);
          } else if (a.kind === 'collect' || a.kind === 'waive') {
            const id = pick(charges, a.pick);
            if (id) res = await api.post(`/v1/charges/${id}/${a.kind}`);
          } else if (a.kind === 'dispute') {
            const id = pick(charges, a.pick);
            if (id) {
              res = await api.post(`/v1/charges/${id}/disputes`, { reason: 'property_test' });
              if (res.status === 201) disputes.push(res.body.id);
            }
          } else if (a.kind === 'approve' || a.kind === 'close') {
            const id = pick(disputes, a.pick);
            if (id) res = await api.post(`/v1/disputes/${id}/${a.kind}`);
          } else if (a.kind === 'return') res = await api.post(`/v1/test/bookings/${booking.id}/return`, { mileage_in: 1100 });
          else if (a.kind === 'capture') {
            const chargeId = pick(charges, a.pick);
            res = await api.post(`/v1/bookings/${booking.id}/deposit/capture`, { ...(a.amount !== null && !chargeId ? { amount_cents: a.amount } : {}), ...(chargeId ? { charge_id: chargeId } : {}) });
          } else res = await api.post(`/v1/bookings/${booking.id}/deposit/release`);
          if (res) expect([200, 201, 409, 422], `${JSON.stringify(a)}: ${JSON.stringify(res.body)}`).toContain(res.status);
          await balanced(booking.id);
        }
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});
