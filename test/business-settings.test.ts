import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, period, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, paidBookingStartingSoon } from './support/fixtures.ts';

/*
 * The business and its rental settings through the public API: read and update them over
 * REST and GraphQL, then change every setting through the API and watch what it changes,
 * through the API too.
 */

const DEFAULTS = {
  object: 'business_settings',
  livemode: false,
  booking_approval_mode: 'automatic',
  cancellation_window_hours: 24,
  late_cancellation_refund_percent: 0,
  security_deposit_defaults: { required: true },
  included_mileage_defaults: { miles_per_day: 200 },
  pickup_rules: { earliest_minutes_before_start: 60 },
  return_rules: { grace_minutes: 59, late_fee_cents_per_hour: 0 },
  identity_requirements: { required: true },
  agreement_requirements: { required: true },
  insurance_requirements: { required: false },
};

describe.each(ENGINES)('business and settings on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  const setSettings = async (body: Record<string, unknown>) => {
    const res = await api.post('/v1/business/settings', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const resetSettings = () => setSettings(Object.fromEntries(Object.keys(DEFAULTS).filter((k) => k !== 'object' && k !== 'livemode').map((k) => [k, null])));

  it('reads the business and updates its name, support contacts, address and time zone (business.updated); the currency cannot change', async () => {
    const read = await api.get('/v1/business');
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      object: 'business', id: t.business.business_id, livemode: false, name: 'Test Rentals', currency: 'usd', timezone: 'UTC',
      support_email: null, support_phone: null, address: null, created_at: expect.any(String),
    });

    const updated = await api.post('/v1/business', { name: 'Lone Star Rentals', support_email: 'help@lonestar.example', timezone: 'America/Chicago', address: { line1: '1 Congress Ave', city: 'Austin', country: 'US' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Lone Star Rentals', support_email: 'help@lonestar.example', timezone: 'America/Chicago', address: { line1: '1 Congress Ave', line2: null, city: 'Austin', state: null, postal_code: null, country: 'US' } });

    // Address lines merge; null clears one; fields not sent stay.
    const merged = await api.post('/v1/business', { support_phone: '+1 512 555 0100', address: { postal_code: '78701', line1: null } });
    expect(merged.body).toMatchObject({ name: 'Lone Star Rentals', support_phone: '+1 512 555 0100', address: { line1: null, city: 'Austin', postal_code: '78701', country: 'US' } });

    const events = (await api.get('/v1/events?type=business.updated')).body.data;
    expect(events).toHaveLength(2);
    expect(events[0].data.object).toMatchObject({ object: 'business', id: t.business.business_id, support_phone: '+1 512 555 0100', address: { postal_code: '78701' } });

    for (const [body, param] of [
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ timezone: '+01:00' }, 'timezone'],
      [{ support_email: 'not an email' }, 'support_email'],
      [{ address: { country: 'usa' } }, 'address.country'],
      [{ name: '' }, 'name'],
      [{ name: null }, 'name'],
    ] as const) {
      const res = await api.post('/v1/business', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.param).toBe(param);
    }
    const currency = await api.post('/v1/business', { currency: 'eur' });
    expect(currency.status).toBe(422);
    expect(currency.body.error).toMatchObject({ code: 'parameter_unknown', param: 'currency' });

    // The same over GraphQL; a live key sees the same business, in its own environment.
    const viaGql = await gql('mutation { updateBusiness(input: { supportEmail: null, timezone: null }) { id livemode name supportEmail timezone address { city } } }');
    expect(viaGql.data.updateBusiness).toEqual({ id: t.business.business_id, livemode: false, name: 'Lone Star Rentals', supportEmail: null, timezone: 'UTC', address: { city: 'Austin' } });
    const live = await restClient(t.baseUrl, t.business.live_secret_key).get('/v1/business');
    expect(live.body).toMatchObject({ livemode: true, name: 'Lone Star Rentals' });
    // Another business's key reads its own.
    expect((await restClient(t.baseUrl, t.other.test_secret_key).get('/v1/business')).body).toMatchObject({ id: t.other.business_id, name: 'Other Rentals' });
  });

  it('reads the settings (defaults filled in), updates some (groups merge, null resets to the default), validates each value naming it, and keeps sandbox and live apart', async () => {
    expect((await api.get('/v1/business/settings')).body).toEqual(DEFAULTS);

    const changed = await setSettings({ cancellation_window_hours: 48, return_rules: { late_fee_cents_per_hour: 1500 } });
    expect(changed).toEqual({ ...DEFAULTS, cancellation_window_hours: 48, return_rules: { grace_minutes: 59, late_fee_cents_per_hour: 1500 } });
    const merged = await setSettings({ return_rules: { grace_minutes: 30 } });
    expect(merged.return_rules).toEqual({ grace_minutes: 30, late_fee_cents_per_hour: 1500 });
    expect(merged.cancellation_window_hours).toBe(48);
    const reset = await setSettings({ return_rules: { grace_minutes: null }, cancellation_window_hours: null });
    expect(reset).toEqual({ ...DEFAULTS, return_rules: { grace_minutes: 59, late_fee_cents_per_hour: 1500 } });
    expect(await setSettings({ return_rules: null })).toEqual(DEFAULTS);

    const events = (await api.get('/v1/events?type=business.settings_updated')).body.data;
    expect(events).toHaveLength(4);
    expect(events[0].data.object).toEqual(DEFAULTS);
    expect(events[3].data.object.cancellation_window_hours).toBe(48);

    for (const [body, param] of [
      [{ return_rules: { grace_minutes: -1 } }, 'return_rules.grace_minutes'],
      [{ return_rules: { grace_minutes: 1.5 } }, 'return_rules.grace_minutes'],
      [{ late_cancellation_refund_percent: 101 }, 'late_cancellation_refund_percent'],
      [{ booking_approval_mode: 'sometimes' }, 'booking_approval_mode'],
      [{ identity_requirements: { required: 'yes' } }, 'identity_requirements.required'],
      [{ pickup_rules: 'early' }, 'pickup_rules'],
    ] as const) {
      const res = await api.post('/v1/business/settings', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'validation_error', param });
    }
    const unknown = await api.post('/v1/business/settings', { return_rules: { grace_hours: 1 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.param).toBe('return_rules.grace_hours');
    expect((await api.get('/v1/business/settings')).body).toEqual(DEFAULTS);

    // GraphQL: the same settings; a live key's change rules production only.
    const viaGql = await gql('mutation { updateBusinessSettings(input: { bookingApprovalMode: manual, pickupRules: { earliestMinutesBeforeStart: 15 } }) { livemode bookingApprovalMode pickupRules { earliestMinutesBeforeStart } returnRules { graceMinutes } } }');
    expect(viaGql.data.updateBusinessSettings).toEqual({ livemode: false, bookingApprovalMode: 'manual', pickupRules: { earliestMinutesBeforeStart: 15 }, returnRules: { graceMinutes: 59 } });
    const bad = await gql('mutation { updateBusinessSettings(input: { returnRules: { graceMinutes: -5 } }) { livemode } }');
    expect(bad.errors?.[0].extensions).toMatchObject({ code: 'parameter_invalid', param: 'return_rules.grace_minutes' });
    const live = restClient(t.baseUrl, t.business.live_secret_key);
    expect((await live.get('/v1/business/settings')).body).toEqual({ ...DEFAULTS, livemode: true });
    expect((await live.post('/v1/business/settings', { late_cancellation_refund_percent: 50 })).body.late_cancellation_refund_percent).toBe(50);
    expect((await api.get('/v1/business/settings')).body).toMatchObject({ booking_approval_mode: 'manual', late_cancellation_refund_percent: 0 });
    expect((await gql('{ businessSettings { bookingApprovalMode lateCancellationRefundPercent } }')).data.businessSettings).toEqual({ bookingApprovalMode: 'manual', lateCancellationRefundPercent: 0 });
    await resetSettings();
  });

  it('booking_approval_mode: manual holds a paid booking in booked until POST .../approve; automatic confirms it at once', async () => {
    await setSettings({ booking_approval_mode: 'manual' });
    const held = await createBooking(api, (await createVehicle(api)).id);
    expect((await api.post(`/v1/test/bookings/${held.id}/payment/succeed`)).status).toBe(200);
    expect((await api.get(`/v1/bookings/${held.id}`)).body.state).toBe('booked');
    expect((await api.post(`/v1/bookings/${held.id}/approve`)).body.state).toBe('confirmed');

    await setSettings({ booking_approval_mode: 'automatic' });
    const automatic = await createBooking(api, (await createVehicle(api)).id);
    await api.post(`/v1/test/bookings/${automatic.id}/payment/succeed`);
    expect((await api.get(`/v1/bookings/${automatic.id}`)).body.state).toBe('confirmed');
  });

  it('cancellation_window_hours and late_cancellation_refund_percent: a cancellation inside the window refunds the percentage, one before it everything', async () => {
    await setSettings({ cancellation_window_hours: 24 * 30, late_cancellation_refund_percent: 25 });
    const vehicle = await createVehicle(api);
    const late = await createBooking(api, vehicle.id, period(2, 1)); // starts in 2 days: inside the window
    await api.post(`/v1/test/bookings/${late.id}/payment/succeed`);
    const lateCancel = await api.post(`/v1/bookings/${late.id}/cancel`);
    expect(lateCancel.body.state).toBe('refunded');
    const latePayment = (await api.get(`/v1/bookings/${late.id}/payment`)).body;
    expect(latePayment.amount_refunded_cents).toBe(Math.floor(latePayment.amount_cents * 0.25));

    await setSettings({ cancellation_window_hours: 1 });
    const early = await createBooking(api, vehicle.id);
    await api.post(`/v1/test/bookings/${early.id}/payment/succeed`);
    await api.post(`/v1/bookings/${early.id}/cancel`);
    const earlyPayment = (await api.get(`/v1/bookings/${early.id}/payment`)).body;
    expect(earlyPayment).toMatchObject({ state: 'refunded', amount_refunded_cents: earlyPayment.amount_cents });

    // The refund operation without an amount follows the same policy.
    await setSettings({ cancellation_window_hours: 24 * 30, late_cancellation_refund_percent: 40 });
    const refunded = await createBooking(api, vehicle.id, period(4, 1));
    await api.post(`/v1/test/bookings/${refunded.id}/payment/succeed`);
    const refund = await api.post(`/v1/bookings/${refunded.id}/refund`, {});
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    const refundedPayment = (await api.get(`/v1/bookings/${refunded.id}/payment`)).body;
    expect(refundedPayment.amount_refunded_cents).toBe(Math.floor(refundedPayment.amount_cents * 0.4));
    await resetSettings();
  });

  it('security_deposit_defaults, identity_, agreement_ and insurance_requirements: the gates of new bookings and their pickup readiness', async () => {
    const gatesOf = async (bookingId: string) => Object.fromEntries((await api.get(`/v1/bookings/${bookingId}/pickup-readiness`)).body.gates.map((g: any) => [g.name, g.status]));
    const before = await paidBookingStartingSoon(api);
    expect((await api.get(`/v1/bookings/${before.id}`)).body.gates).toMatchObject({ deposit: 'pending', identity: 'pending', agreement: 'pending', insurance: 'not_required' });

    await setSettings({ security_deposit_defaults: { required: false }, identity_requirements: { required: false }, agreement_requirements: { required: false }, insurance_requirements: { required: true } });
    const after = await paidBookingStartingSoon(api);
    expect((await api.get(`/v1/bookings/${after.id}`)).body.gates).toMatchObject({ deposit: 'not_required', identity: 'not_required', agreement: 'not_required', insurance: 'pending' });
    expect(await gatesOf(after.id)).toMatchObject({ deposit: 'not_required', identity: 'not_required', agreement: 'not_required', insurance: 'pending' });
    expect((await api.get(`/v1/bookings/${after.id}/deposit`)).body.state).toBe('not_required');
    // Only insurance stands between this booking and its pickup; the earlier booking keeps its gates.
    const notReady = await api.post(`/v1/bookings/${after.id}/pickup/complete`, { mileage_out: 10 });
    expect(notReady.body.error).toMatchObject({ code: 'booking_not_ready', unmet_gates: ['insurance'] });
    expect(await gatesOf(before.id)).toMatchObject({ deposit: 'pending', identity: 'pending', agreement: 'pending', insurance: 'not_required' });
    await resetSettings();
  });

  it('included_mileage_defaults: a vehicle made without its own figure takes the business\'s miles per day, and its quotes and bookings include them', async () => {
    await setSettings({ included_mileage_defaults: { miles_per_day: 150 } });
    const vehicle = await createVehicle(api, { included_miles: undefined });
    expect(vehicle.included_miles).toBe(150);
    const own = await createVehicle(api, { included_miles: 300 });
    const period = { start_at: '2031-03-01T10:00:00Z', end_at: '2031-03-04T10:00:00Z' };
    const quote = await api.post('/v1/quotes', { vehicle_id: vehicle.id, ...period });
    expect(quote.body.included_miles).toBe(450);
    expect((await api.post('/v1/quotes', { vehicle_id: own.id, ...period })).body.included_miles).toBe(900);
    const booking = await createBooking(api, vehicle.id, period);
    expect(booking.included_miles).toBe(450);
    await resetSettings();
  });

  it('pickup_rules: the pickup window opens earliest_minutes_before_start before start_at', async () => {
    const booking = await paidBookingStartingSoon(api, { minutes: 30 });
    const window = async () => (await api.get(`/v1/bookings/${booking.id}/pickup-readiness`)).body;
    expect((await window()).gates.find((g: any) => g.name === 'pickup_window').status).toBe('satisfied');
    await setSettings({ pickup_rules: { earliest_minutes_before_start: 10 } });
    const closed = await window();
    expect(closed.gates.find((g: any) => g.name === 'pickup_window')).toMatchObject({ status: 'pending', missing: expect.stringContaining('10 minutes before start_at') });
    expect(new Date(closed.opens_at).getTime()).toBe(new Date(booking.start_at).getTime() - 10 * 60_000);
    await resetSettings();
  });

  // Last: it moves the sandbox clock forward.
  it('return_rules: a rental goes late only after grace_minutes past end_at (sandbox clock), and its return costs late_fee_cents_per_hour per started hour', async () => {
    await setSettings({ return_rules: { grace_minutes: 120, late_fee_cents_per_hour: 1500 } });
    const booking = await paidBookingStartingSoon(api, { minutes: 20 });
    for (const step of ['identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    expect((await api.post(`/v1/bookings/${booking.id}/pickup/complete`, { mileage_out: 1 })).body.state).toBe('active');
    const end = new Date(booking.end_at).getTime();

    // 61 minutes past end_at is within this business's 120 minutes of grace (the default 59 would be late).
    expect((await api.post('/v1/test/clock/advance', { to: new Date(end + 61 * 60_000).toISOString() })).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('active');
    expect((await api.post('/v1/test/clock/advance', { to: new Date(end + 121 * 60_000).toISOString() })).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('late');

    // Back 121 minutes (3 started hours) after end_at: 3 × 15.00.
    expect((await api.post(`/v1/bookings/${booking.id}/return/submit`, { mileage_in: 2 })).body.state).toBe('submitted');
    const charges = (await api.get(`/v1/bookings/${booking.id}/charges`)).body.data;
    expect(charges.map((c: any) => [c.type, c.amount_cents])).toEqual([['late_return', 4500]]);
  });
});
