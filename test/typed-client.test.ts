import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTypes } from '../client/generate.ts';
import { createRentalClient } from '../client/index.ts';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createVehicle, nextPeriod } from './support/fixtures.ts';
import { answerStats } from './support/openapi-check.ts';

/**
 * The typed client (client/: openapi-typescript's types of the OpenAPI document, openapi-fetch)
 * against the real service: quote → booking → payment → cancel. TypeScript checks every path,
 * parameter, body and answer field used here (`npx tsc --noEmit`); the answers are also checked
 * against the document at run time, like every other REST answer of the suites.
 */
describe.each(ENGINES)('the typed client on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof createRentalClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    // openapi-fetch calls the global fetch: the suites' answer hook checks each answer against the document.
    api = createRentalClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(() => t?.close());

  it('client/schema.d.ts is generated from the document the service serves (else: run npm run client:generate)', async () => {
    const live = (await restClient(t.baseUrl, null).get('/v1/openapi.json')).body;
    const committed = await readFile(new URL('../client/schema.d.ts', import.meta.url), 'utf8');
    const current = await clientTypes(live);
    expect(committed === current, 'client/schema.d.ts is out of date: run npm run client:generate').toBe(true);
  });

  it('quotes, books, pays and cancels a booking, every answer typed', async () => {
    const before = answerStats().validated;
    const vehicle = await createVehicle(restClient(t.baseUrl, t.business.test_secret_key), { name: 'Typed Corolla' });
    const period = nextPeriod(3);

    const quote = await api.POST('/v1/quotes', { body: { vehicle_id: vehicle.id, start_at: period.start_at, end_at: period.end_at, unlimited_miles: true } });
    expect(quote.response.status).toBe(201);
    expect(quote.data).toMatchObject({ object: 'quote', vehicle_id: vehicle.id, days: 3, available: true, currency: 'usd' });
    const total: number = quote.data!.total_cents;
    expect(total).toBe(3 * (4900 + 1500));

    const created = await api.POST('/v1/bookings', {
      body: { vehicle_id: vehicle.id, start_at: period.start_at, end_at: period.end_at, unlimited_miles: true, customer: { name: 'Ada Lovelace', email: 'ada@example.com' } },
      params: { header: { 'Idempotency-Key': `typed-${engine}-1` } },
    });
    expect(created.response.status).toBe(201);
    const booking = created.data!;
    expect(booking).toMatchObject({ object: 'booking', state: 'pending_payment', total_cents: total, vehicle_id: vehicle.id });

    const paid = await api.POST('/v1/test/bookings/{booking_id}/payment/succeed', { params: { path: { booking_id: booking.id } } });
    expect(paid.response.status).toBe(200);
    const payment = await api.GET('/v1/bookings/{booking_id}/payment', { params: { path: { booking_id: booking.id } } });
    expect(payment.data).toMatchObject({ object: 'payment', booking_id: booking.id, state: 'succeeded', amount_cents: total, amount_refunded_cents: 0 });

    const read = await api.GET('/v1/bookings/{booking_id}', { params: { path: { booking_id: booking.id } } });
    expect(read.data?.state).toBe('confirmed');
    expect(read.data?.next_states).toContain('canceled');

    const canceled = await api.POST('/v1/bookings/{booking_id}/cancel', { params: { path: { booking_id: booking.id } }, body: { reason: 'customer changed plans' } });
    expect(canceled.response.status).toBe(200);
    expect(canceled.data).toMatchObject({ id: booking.id, cancellation_reason: 'customer changed plans' });
    expect(['canceled', 'refunded']).toContain(canceled.data!.state);
    const refunded = await api.GET('/v1/bookings/{booking_id}/payment', { params: { path: { booking_id: booking.id } } });
    expect(refunded.data?.amount_refunded_cents).toBe(total);

    // An error answer is typed too: the envelope, with its code.
    const again = await api.POST('/v1/bookings/{booking_id}/cancel', { params: { path: { booking_id: booking.id } } });
    expect(again.response.status).toBe(409);
    expect(again.error?.error.code).toBe('invalid_state_transition');
    const missing = await api.GET('/v1/bookings/{booking_id}', { params: { path: { booking_id: 'bk_nope' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error).toMatchObject({ type: 'invalid_request', code: 'resource_missing' });

    // Each answer above was checked against its response schema (the vehicle's too, through restClient).
    expect(answerStats().validated - before).toBe(10);
  });
});
