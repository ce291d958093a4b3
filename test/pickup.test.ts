import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, paidBookingStartingSoon as paidBooking, uploadedImage } from './support/fixtures.ts';

/*
 * The pickup through the public API: readiness gate by gate, photos and the odometer, and the
 * hand-over, refused with booking_not_ready while any gate (the pickup window included) is
 * unmet. The sandbox stands in only for outside parties (the processor's payment, the
 * identity provider, the customer's signature).
 */

describe.each(ENGINES)('pickup on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  const paidBookingStartingSoon = () => paidBooking(api, { days: 2 });
  const uploadedPhoto = () => uploadedImage(api);

  const unmetGates = async (bookingId: string) => {
    const res = await api.post(`/v1/bookings/${bookingId}/pickup/complete`, { mileage_out: 1000 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'booking_not_ready' });
    return res.body.error.unmet_gates as string[];
  };

  it('shows readiness gate by gate and refuses the hand-over while any gate is unmet, each in turn, then starts the rental', async () => {
    const booking = await paidBookingStartingSoon();
    const readiness = await api.get(`/v1/bookings/${booking.id}/pickup-readiness`);
    expect(readiness.status).toBe(200);
    expect(readiness.body).toMatchObject({ object: 'pickup_readiness', booking_id: booking.id, ready: false, opens_at: expect.any(String) });
    expect(readiness.body.gates).toEqual([
      { name: 'payment', status: 'satisfied', missing: null },
      { name: 'deposit', status: 'pending', missing: 'security deposit is pending' },
      { name: 'identity', status: 'pending', missing: 'identity verification is pending' },
      { name: 'agreement', status: 'pending', missing: 'rental agreement is pending' },
      { name: 'insurance', status: 'not_required', missing: null },
      { name: 'confirmation', status: 'satisfied', missing: null },
      { name: 'pickup_window', status: 'satisfied', missing: null },
    ]);

    expect(await unmetGates(booking.id)).toEqual(['deposit', 'identity', 'agreement']);
    expect((await api.post(`/v1/test/bookings/${booking.id}/identity/verify`)).status).toBe(200);
    expect(await unmetGates(booking.id)).toEqual(['deposit', 'agreement']);
    expect((await api.post(`/v1/test/bookings/${booking.id}/agreement/sign`)).status).toBe(200);
    expect(await unmetGates(booking.id)).toEqual(['deposit']);
    expect((await api.post(`/v1/bookings/${booking.id}/deposit`)).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}/pickup-readiness`)).body.ready).toBe(true);

    // The odometer is needed to start: here or recorded before.
    const noMileage = await api.post(`/v1/bookings/${booking.id}/pickup/complete`);
    expect(noMileage.status).toBe(422);
    expect(noMileage.body.error).toMatchObject({ code: 'parameter_missing', param: 'mileage_out' });
    const mileage = await api.post(`/v1/bookings/${booking.id}/pickup/mileage`, { mileage_out: 48_213 });
    expect(mileage.body).toEqual({ object: 'pickup', booking_id: booking.id, mileage_out: 48_213, picked_up_at: null, photos: [] });
    expect((await api.post(`/v1/bookings/${booking.id}/pickup/mileage`, { mileage_out: -1 })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'mileage_out' });

    const photo = await uploadedPhoto();
    const photos = await api.post(`/v1/bookings/${booking.id}/pickup/photos`, { photos: [{ slot: 'front', file_id: photo }, { slot: 'odometer', file_id: photo }] });
    expect(photos.status).toBe(200);
    expect(photos.body.photos).toEqual([
      { slot: 'front', file_id: photo, created_at: expect.any(String) },
      { slot: 'odometer', file_id: photo, created_at: expect.any(String) },
    ]);
    const bad = await api.post(`/v1/bookings/${booking.id}/pickup/photos`, { photos: [{ slot: 'front', file_id: photo }, { slot: 'rear', file_id: 'file_missing' }] });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'file_not_usable', param: 'photos.1.file_id' });
    expect((await api.post(`/v1/bookings/${booking.id}/pickup/photos`, { photos: [{ slot: 'roof', file_id: photo }] })).body.error.param).toBe('photos.0.slot');

    const started = await api.post(`/v1/bookings/${booking.id}/pickup/complete`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ id: booking.id, state: 'active', mileage_out: 48_213 });
    const events = (await api.get(`/v1/events?booking_id=${booking.id}&type=rental.started`)).body.data;
    expect(events).toHaveLength(1);
    const again = await api.post(`/v1/bookings/${booking.id}/pickup/complete`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'active' });
    expect((await api.post(`/v1/bookings/${booking.id}/pickup/mileage`, { mileage_out: 1 })).status).toBe(409);
  });

  it('keeps the hand-over shut before the pickup window opens, even with every other gate met', async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    const readiness = (await api.get(`/v1/bookings/${booking.id}/pickup-readiness`)).body;
    expect(readiness.ready).toBe(false);
    expect(readiness.gates.find((g: any) => g.name === 'pickup_window')).toEqual({ name: 'pickup_window', status: 'pending', missing: expect.stringContaining('the pickup window opens at') });
    expect(await unmetGates(booking.id)).toEqual(['pickup_window']);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('ready_for_pickup');

    const unpaid = await createBooking(api, (await createVehicle(api)).id);
    expect((await api.post(`/v1/bookings/${unpaid.id}/pickup/mileage`, { mileage_out: 5 })).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'pending_payment' });
    expect((await restClient(t.baseUrl, t.other.test_secret_key).get(`/v1/bookings/${booking.id}/pickup-readiness`)).status).toBe(404);
  });

  it('reads readiness, records the pickup and starts the rental over GraphQL', async () => {
    const booking = await paidBookingStartingSoon();
    for (const step of ['identity/verify', 'agreement/sign', 'deposit/secure']) await api.post(`/v1/test/bookings/${booking.id}/${step}`);
    const readiness = await gql(`query($id: ID!) { pickupReadiness(bookingId: $id) { ready gates { name missing } } }`, { id: booking.id });
    expect(readiness.data.pickupReadiness.ready).toBe(true);
    const photo = await uploadedPhoto();
    const recorded = await gql(
      `mutation($id: ID!, $input: TripPhotosInput!) { addPickupPhotos(bookingId: $id, input: $input) { bookingId photos { slot fileId file { contentType } } } }`,
      { id: booking.id, input: { photos: [{ slot: 'interior', fileId: photo }] } },
    );
    expect(recorded.errors).toBeUndefined();
    expect(recorded.data.addPickupPhotos).toEqual({ bookingId: booking.id, photos: [{ slot: 'interior', fileId: photo, file: { contentType: 'image/png' } }] });
    const started = await gql(`mutation($id: ID!) { completePickup(bookingId: $id, input: { mileageOut: 7 }) { state mileageOut } }`, { id: booking.id });
    expect(started.errors).toBeUndefined();
    expect(started.data.completePickup).toEqual({ state: 'active', mileageOut: 7 });
  });
});

describe.each(ENGINES)('insurance on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    // The setting is read when a booking is made.
    expect((await api.post('/v1/business/settings', { insurance_requirements: { required: true } })).status).toBe(200);
  });
  afterAll(async () => t?.close());

  it('keeps the hand-over shut until insurance is submitted and approved; a rejection fails the gate until it is submitted again', async () => {
    const vehicle = await createVehicle(api);
    const start = new Date(Date.now() + 30 * 60_000);
    start.setUTCSeconds(0, 0);
    const booking = await createBooking(api, vehicle.id, { start_at: start.toISOString(), end_at: new Date(start.getTime() + 86_400_000).toISOString() });
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    const refused = await api.post(`/v1/bookings/${booking.id}/pickup/complete`, { mileage_out: 1 });
    expect(refused.body.error).toMatchObject({ code: 'booking_not_ready', unmet_gates: ['insurance'] });
    expect((await api.get(`/v1/bookings/${booking.id}/insurance`)).status).toBe(404);

    const submitted = await api.post(`/v1/bookings/${booking.id}/insurance`, { provider: 'Acme Mutual', policy_ref: 'AM-1' });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ object: 'insurance', state: 'submitted', provider: 'Acme Mutual', policy_ref: 'AM-1', document_file_ids: [], next_states: ['approved', 'rejected'] });
    expect((await api.post(`/v1/bookings/${booking.id}/insurance`, { provider: 'Acme Mutual', policy_ref: 'AM-2' })).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'submitted' });

    const rejected = await api.post(`/v1/bookings/${booking.id}/insurance/reject`, { reason: 'Does not cover rentals' });
    expect(rejected.body).toMatchObject({ state: 'rejected', rejection_reason: 'Does not cover rentals' });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.gates.insurance).toBe('failed');
    expect((await api.post(`/v1/bookings/${booking.id}/insurance/approve`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'rejected' });

    const bad = await api.post(`/v1/bookings/${booking.id}/insurance`, { provider: 'Better Insurer', policy_ref: 'BI-9', document_file_ids: ['file_nope'] });
    expect(bad.body.error).toMatchObject({ code: 'file_not_usable', param: 'document_file_ids' });
    expect((await api.post(`/v1/bookings/${booking.id}/insurance`, { provider: 'Better Insurer', policy_ref: 'BI-9' })).body.state).toBe('submitted');
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.gates.insurance).toBe('pending');
    const approved = await api.post(`/v1/bookings/${booking.id}/insurance/approve`);
    expect(approved.body).toMatchObject({ state: 'approved', rejection_reason: null });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'ready_for_pickup', gates: { insurance: 'satisfied' } });
    const types = (await api.get(`/v1/events?booking_id=${booking.id}&limit=100`)).body.data.map((e: any) => e.type).reverse();
    expect(types.filter((x: string) => x.startsWith('insurance.'))).toEqual(['insurance.submitted', 'insurance.rejected', 'insurance.submitted', 'insurance.approved']);
    expect((await api.post(`/v1/bookings/${booking.id}/pickup/complete`, { mileage_out: 1 })).body.state).toBe('active');

    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const read = await gql(`query($id: ID!) { bookingInsurance(bookingId: $id) { state provider nextStates booking { state } } }`, { id: booking.id });
    expect(read.data.bookingInsurance).toEqual({ state: 'approved', provider: 'Better Insurer', nextStates: [], booking: { state: 'active' } });
  });

  it("carries the coverage's expires_on: a policy that ends before the rental does fails the gate at once, with the reason; one in force through the last day passes", async () => {
    const vehicle = await createVehicle(api);
    // Noon to noon (UTC, the business's time zone): the rental's last day is the end's date.
    const start = new Date(Date.now() + 5 * 86_400_000);
    start.setUTCHours(12, 0, 0, 0);
    const end = new Date(start.getTime() + 3 * 86_400_000);
    const lastDay = end.toISOString().slice(0, 10);
    const dayBefore = new Date(end.getTime() - 86_400_000).toISOString().slice(0, 10);
    const booking = await createBooking(api, vehicle.id, { start_at: start.toISOString(), end_at: end.toISOString() });
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);

    const short = await api.post(`/v1/bookings/${booking.id}/insurance`, { provider: 'Acme Mutual', policy_ref: 'AM-7', expires_on: dayBefore });
    expect(short.status).toBe(200);
    const reason = `The policy expires on ${dayBefore}, before the rental ends on ${lastDay}.`;
    expect(short.body).toMatchObject({ object: 'insurance', state: 'rejected', expires_on: dayBefore, rejection_reason: reason, next_states: ['submitted'] });
    const readiness = (await api.get(`/v1/bookings/${booking.id}/pickup-readiness`)).body;
    expect(readiness.gates.find((g: any) => g.name === 'insurance')).toMatchObject({ status: 'failed' });
    const events = (await api.get(`/v1/events?booking_id=${booking.id}&limit=100`)).body.data as any[];
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['insurance.rejected', 'insurance.submitted']);
    expect(events[0].data.object).toMatchObject({ state: 'rejected', rejection_reason: reason });
    expect(events[0].request.id).toBe(events[1].request.id);

    // Not a date, or no such day: 422 on expires_on, nothing recorded.
    for (const bad of ['2027-02-30', '31/12/2027', '2027-12-31T00:00:00Z']) {
      const refused = await api.post(`/v1/bookings/${booking.id}/insurance`, { provider: 'Acme Mutual', policy_ref: 'AM-8', expires_on: bad });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ type: 'validation_error', param: 'expires_on' });
    }

    // Submitted again over GraphQL with a policy in force through the rental's last day: it passes the gate once approved.
    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const again = await gql(`mutation($id: ID!, $input: InsuranceInput!) { submitInsurance(bookingId: $id, input: $input) { state expiresOn rejectionReason booking { gates { insurance } } } }`, {
      id: booking.id, input: { provider: 'Acme Mutual', policyRef: 'AM-9', expiresOn: lastDay },
    });
    expect(again.errors).toBeUndefined();
    expect(again.data.submitInsurance).toEqual({ state: 'submitted', expiresOn: lastDay, rejectionReason: null, booking: { gates: { insurance: 'pending' } } });
    expect((await api.post(`/v1/bookings/${booking.id}/insurance/approve`)).body).toMatchObject({ state: 'approved', expires_on: lastDay });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.gates.insurance).toBe('satisfied');
  });

  it('refuses to approve a policy that no longer covers the rental (409 naming both dates): the reviewer rejects it instead', async () => {
    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id);
    const lastDay = new Date(new Date(booking.end_at).getTime() - 1).toISOString().slice(0, 10);
    const submitted = await api.post(`/v1/bookings/${booking.id}/insurance`, { provider: 'Acme Mutual', policy_ref: 'AM-10', expires_on: lastDay });
    expect(submitted.body.state).toBe('submitted');
    // The policy's end recorded earlier than the rental's (as if the booking had been extended since).
    const earlier = new Date(new Date(booking.end_at).getTime() - 2 * 86_400_000).toISOString().slice(0, 10);
    await t.db.prisma.insurance.update({ where: { id: submitted.body.id }, data: { expiresOn: earlier } });
    const refused = await api.post(`/v1/bookings/${booking.id}/insurance/approve`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'submitted', message: `Cannot approve the insurance: the policy expires on ${earlier}, before the rental ends on ${lastDay}.` });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.gates.insurance).toBe('pending');
  });
});
