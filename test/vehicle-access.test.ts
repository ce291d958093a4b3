import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { paidBookingStartingSoon as paidBooking } from './support/fixtures.ts';

/*
 * Vehicle access: configured ahead, its code and instructions hidden until released, released
 * only once the booking is ready (never bypassing a gate), gone again when revoked or when the
 * vehicle is back, and never in an event.
 */
describe.each(ENGINES)('vehicle access on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  const paidBookingStartingSoon = () => paidBooking(api);

  it('keeps the code hidden until release, refuses release before readiness, hands it over when ready, and takes it back', async () => {
    const booking = await paidBookingStartingSoon();
    expect((await api.get(`/v1/bookings/${booking.id}/vehicle-access`)).body).toEqual({
      object: 'vehicle_access', booking_id: booking.id, state: 'not_configured', method: null, access_code: null, instructions: null, released_at: null, revoked_at: null,
    });
    expect((await api.post(`/v1/bookings/${booking.id}/vehicle-access/release`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'not_configured' });

    const configured = await api.post(`/v1/bookings/${booking.id}/vehicle-access`, { method: 'keypad', instructions: 'Bay 4, keypad left of the door.' });
    expect(configured.status).toBe(200);
    expect(configured.body).toMatchObject({ state: 'configured', method: 'keypad', access_code: null, instructions: null });

    const early = await api.post(`/v1/bookings/${booking.id}/vehicle-access/release`);
    expect(early.status).toBe(400);
    expect(early.body.error).toMatchObject({ code: 'booking_not_ready', unmet_gates: ['deposit', 'identity', 'agreement'] });
    expect((await api.get(`/v1/bookings/${booking.id}/vehicle-access`)).body.access_code).toBeNull();

    for (const step of ['identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    const released = await api.post(`/v1/bookings/${booking.id}/vehicle-access/release`);
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({ state: 'released', method: 'keypad', access_code: expect.stringMatching(/^\d{6}$/), instructions: 'Bay 4, keypad left of the door.', released_at: expect.any(String) });
    const code = released.body.access_code as string;
    expect((await api.get(`/v1/bookings/${booking.id}/vehicle-access`)).body.access_code).toBe(code);
    // Changing a released access would change what the customer holds: revoke first.
    expect((await api.post(`/v1/bookings/${booking.id}/vehicle-access`, { method: 'lockbox' })).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'released' });

    const revoked = await api.post(`/v1/bookings/${booking.id}/vehicle-access/revoke`);
    expect(revoked.body).toMatchObject({ state: 'revoked', access_code: null, instructions: null, revoked_at: expect.any(String) });
    expect((await api.post(`/v1/bookings/${booking.id}/vehicle-access/revoke`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'revoked' });
    const rekeyed = await api.post(`/v1/bookings/${booking.id}/vehicle-access`, { method: 'lockbox', access_code: 'BOX-2291' });
    expect(rekeyed.body).toMatchObject({ state: 'configured', method: 'lockbox', access_code: null });
    expect((await api.post(`/v1/bookings/${booking.id}/vehicle-access/release`)).body.access_code).toBe('BOX-2291');

    const everything = JSON.stringify((await api.get(`/v1/events?booking_id=${booking.id}&limit=100`)).body);
    expect(everything).not.toContain(code);
    expect(everything).not.toContain('BOX-2291');
    expect((await restClient(t.baseUrl, t.other.test_secret_key).get(`/v1/bookings/${booking.id}/vehicle-access`)).status).toBe(404);
  });

  it('hides the code once the vehicle is back, and refuses changes to a finished booking', async () => {
    const booking = await paidBookingStartingSoon();
    for (const step of ['identity/verify', 'agreement/sign', 'deposit/secure']) await api.post(`/v1/test/bookings/${booking.id}/${step}`);
    await api.post(`/v1/bookings/${booking.id}/vehicle-access`, { method: 'smart_lock', access_code: 'SL-7781' });
    expect((await api.post(`/v1/bookings/${booking.id}/vehicle-access/release`)).body.access_code).toBe('SL-7781');
    expect((await api.post(`/v1/bookings/${booking.id}/pickup/complete`, { mileage_out: 10 })).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}/vehicle-access`)).body.access_code).toBe('SL-7781');
    expect((await api.post(`/v1/bookings/${booking.id}/return/submit`, { mileage_in: 20 })).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}/vehicle-access`)).body).toMatchObject({ state: 'released', access_code: null, instructions: null });
    expect((await api.post(`/v1/bookings/${booking.id}/vehicle-access`, { method: 'in_person' })).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'return_in_review' });
  });

  it('configures and releases over GraphQL', async () => {
    const booking = await paidBookingStartingSoon();
    for (const step of ['identity/verify', 'agreement/sign', 'deposit/secure']) await api.post(`/v1/test/bookings/${booking.id}/${step}`);
    const configured = await gql(`mutation($id: ID!) { configureVehicleAccess(bookingId: $id, input: { method: lockbox }) { state accessCode } }`, { id: booking.id });
    expect(configured.data.configureVehicleAccess).toEqual({ state: 'configured', accessCode: null });
    const released = await gql(`mutation($id: ID!) { releaseVehicleAccess(bookingId: $id) { state accessCode } }`, { id: booking.id });
    expect(released.data.releaseVehicleAccess).toEqual({ state: 'released', accessCode: expect.stringMatching(/^\d{6}$/) });
  });
});
