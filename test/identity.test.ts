import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/platform/api-keys.ts';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, TINY_PNG, uploadedImage } from './support/fixtures.ts';
import { startStripeStandIn, type StripeStandIn } from './support/stripe-stand-in.ts';

/*
 * Identity verification through the public API: documents uploaded as private files and
 * handed to the identity provider (the sandbox for test keys, Stripe Identity on a stand-in
 * for Stripe's API for live keys), the verdict moving the booking's identity gate, and the
 * documents' media reachable only through short-lived signed links. On both engines, over
 * REST and GraphQL.
 */
const SECRET_KEY = 'sk_test_standin_identity_4eC39HqLyjWDarjt';
const WEBHOOK_SECRET = 'whsec_standin_identity';

type Client = ReturnType<typeof restClient>;

describe.each(ENGINES)('identity verification on %s', (engine) => {
  let t: TestApp;
  let stripe: StripeStandIn;
  let api: Client;
  let live: Client;
  let other: Client;
  let gql: ReturnType<typeof graphqlClient>;
  let vehicleId: string;
  let liveVehicleId: string;

  beforeAll(async () => {
    stripe = await startStripeStandIn({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
    // Configured as an operator would: live keys reach Stripe (here the stand-in), test keys the sandbox.
    t = await startTestApp(engine, { stripe: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiUrl: stripe.url, timeoutMs: 1_000, maxNetworkRetries: 0 } });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    live = restClient(t.baseUrl, t.business.live_secret_key);
    other = restClient(t.baseUrl, t.other.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
    liveVehicleId = (await createVehicle(live)).id;
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  const document = (client: Client = api) => uploadedImage(client, 'identity_document');

  async function paidBooking(client: Client = api) {
    const booking = await createBooking(client, client === api ? vehicleId : (await createVehicle(client)).id);
    expect((await client.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
    return booking;
  }

  /** Stripe delivering an event to the service, signed as Stripe signs it. */
  function deliver(event: object, signature?: string) {
    const payload = JSON.stringify(event);
    return fetch(`${t.baseUrl}/v1/processor/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature ?? stripe.sign(payload) },
      body: payload,
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  }

  const eventsOf = async (client: Client, bookingId: string, type: string) => (await client.get(`/v1/events?type=${type}&booking_id=${bookingId}&limit=100`)).body.data as any[];

  it('starts with uploaded documents, shows them by kind and file id only, and the sandbox verdict moves the gate and the booking', async () => {
    const booking = await paidBooking();
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'confirmed', gates: { identity: 'pending' } });
    const [front, selfie] = [await document(), await document()];
    expect((await api.get(`/v1/bookings/${booking.id}/identity-verification`)).status).toBe(404);

    const started = await api.post(`/v1/bookings/${booking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: front }, { kind: 'selfie', file_id: selfie }] });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      object: 'identity_verification', id: expect.stringMatching(/^idv_/), livemode: false, booking_id: booking.id, state: 'processing', failure_code: null, provider: 'sandbox',
      created_at: expect.any(String), updated_at: expect.any(String), next_states: ['verified', 'rejected', 'canceled'],
      documents: [{ kind: 'id_front', file_id: front }, { kind: 'selfie', file_id: selfie }],
      client_secret: expect.stringMatching(/^vs_sandbox_\w+_secret_\w+$/),
    });

    const read = await api.get(`/v1/bookings/${booking.id}/identity-verification`);
    expect(read.body).toEqual({ ...started.body, client_secret: null });
    expect(JSON.stringify(read.body)).not.toMatch(/https?:/);
    const [processing] = await eventsOf(api, booking.id, 'identity.processing');
    expect(processing.data.object).toMatchObject({ object: 'identity_verification', state: 'processing', documents: [{ kind: 'id_front', file_id: front }, { kind: 'selfie', file_id: selfie }] });
    expect(JSON.stringify(processing)).not.toMatch(/https?:|secret/);
    // The document's bytes are not reachable from the file itself.
    expect((await api.get(`/v1/files/${front}`)).body).toMatchObject({ purpose: 'identity_document', state: 'uploaded', download_url: null });

    const again = await api.post(`/v1/bookings/${booking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: front }] });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'processing' });

    expect((await api.post(`/v1/test/bookings/${booking.id}/identity/verify`)).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}/identity-verification`)).body).toMatchObject({ state: 'verified', failure_code: null, next_states: ['rejected', 'canceled'] });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.gates.identity).toBe('satisfied');
    expect(await eventsOf(api, booking.id, 'identity.verified')).toHaveLength(1);
  });

  it('over GraphQL: a rejection fails the gate and flags the booking; a restart with new documents is processing again, and a later verdict verifies', async () => {
    const booking = await paidBooking();
    const start = `mutation($bookingId: ID!, $input: StartIdentityVerificationInput!) {
      startIdentityVerification(bookingId: $bookingId, input: $input) { id state provider clientSecret documents { kind fileId } booking { state gates { identity } } } }`;
    const first = await gql(start, { bookingId: booking.id, input: { documents: [{ kind: 'license_front', fileId: await document() }, { kind: 'license_back', fileId: await document() }] } });
    expect(first.errors).toBeUndefined();
    expect(first.data.startIdentityVerification).toMatchObject({ state: 'processing', provider: 'sandbox', clientSecret: expect.stringMatching(/^vs_sandbox_/), booking: { gates: { identity: 'pending' } } });

    const failed = await api.post(`/v1/test/bookings/${booking.id}/identity/fail`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ state: 'problem' });
    const read = `query($bookingId: ID!) { bookingIdentityVerification(bookingId: $bookingId) { state failureCode nextStates clientSecret documents { kind } } }`;
    expect((await gql(read, { bookingId: booking.id })).data.bookingIdentityVerification).toEqual({
      state: 'rejected', failureCode: 'document_unverified', nextStates: ['processing', 'verified', 'canceled'], clientSecret: null, documents: [{ kind: 'license_front' }, { kind: 'license_back' }],
    });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.gates.identity).toBe('failed');

    const front = await document();
    const restarted = await gql(start, { bookingId: booking.id, input: { documents: [{ kind: 'id_front', fileId: front }] } });
    expect(restarted.errors).toBeUndefined();
    expect(restarted.data.startIdentityVerification).toMatchObject({ id: first.data.startIdentityVerification.id, state: 'processing', documents: [{ kind: 'id_front', fileId: front }], booking: { state: 'problem', gates: { identity: 'pending' } } });
    expect(restarted.data.startIdentityVerification.clientSecret).not.toBe(first.data.startIdentityVerification.clientSecret);
    expect((await gql(read, { bookingId: booking.id })).data.bookingIdentityVerification).toMatchObject({ state: 'processing', failureCode: null });

    expect((await api.post(`/v1/test/bookings/${booking.id}/identity/verify`)).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.gates.identity).toBe('satisfied');
    expect((await eventsOf(api, booking.id, 'identity.processing')).length).toBe(2);
    expect((await eventsOf(api, booking.id, 'identity.rejected')).length).toBe(1);
  });

  it('a booking put in problem by a rejected identity resumes when a later verification succeeds: booked again, then confirmed and ready as the table says, with its events', async () => {
    const booking = await paidBooking();
    // Every other gate met, so that the resumed booking goes all the way to ready_for_pickup.
    expect((await api.post(`/v1/test/bookings/${booking.id}/agreement/sign`)).status).toBe(200);
    expect((await api.post(`/v1/test/bookings/${booking.id}/deposit/secure`)).status).toBe(200);
    const failed = await api.post(`/v1/test/bookings/${booking.id}/identity/fail`);
    expect(failed.body).toMatchObject({ state: 'problem', events: ['identity.rejected', 'booking.problem'] });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.next_states).not.toContain('booked');

    const verified = await api.post(`/v1/test/bookings/${booking.id}/identity/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ id: booking.id, state: 'ready_for_pickup', event: 'identity.verified', events: ['identity.verified', 'booking.resumed', 'booking.confirmed', 'pickup.ready'] });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'ready_for_pickup', gates: { identity: 'satisfied' } });
    const types = (await api.get(`/v1/events?booking_id=${booking.id}&limit=100`)).body.data.map((e: any) => e.type).reverse();
    expect(types.slice(-6)).toEqual(['identity.rejected', 'booking.problem', 'identity.verified', 'booking.resumed', 'booking.confirmed', 'pickup.ready']);
    const [resumed] = await eventsOf(api, booking.id, 'booking.resumed');
    expect(resumed.data.object).toMatchObject({ object: 'booking', id: booking.id, state: 'booked' });

    // Over GraphQL, the same simulation; the rental can then start.
    const other = await paidBooking();
    await api.post(`/v1/test/bookings/${other.id}/identity/fail`);
    const viaGraphql = await gql(`mutation($id: ID!) { testVerifyIdentity(bookingId: $id) { state events booking { state gates { identity } } } }`, { id: other.id });
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data.testVerifyIdentity).toMatchObject({ state: 'confirmed', events: ['identity.verified', 'booking.resumed', 'booking.confirmed'], booking: { state: 'confirmed', gates: { identity: 'satisfied' } } });
  });

  it('a resumed booking waits for approval when approval is manual; a problem that is not the identity (a payment failed after booking) stays for a person', async () => {
    const own = await startTestApp(engine);
    try {
      const client = restClient(own.baseUrl, own.business.test_secret_key);
      expect((await client.post('/v1/business/settings', { booking_approval_mode: 'manual' })).status).toBe(200);
      const { id } = (await client.post('/v1/test/bookings')).body;
      await client.post(`/v1/test/bookings/${id}/payment/succeed`);
      expect((await client.post(`/v1/test/bookings/${id}/identity/fail`)).body.state).toBe('problem');
      expect((await client.post(`/v1/test/bookings/${id}/identity/verify`)).body).toMatchObject({ state: 'booked', events: ['identity.verified', 'booking.resumed'] });
      expect((await client.post(`/v1/bookings/${id}/approve`)).body.state).toBe('confirmed');

      const declined = (await client.post('/v1/test/bookings')).body.id;
      await client.post(`/v1/test/bookings/${declined}/payment/succeed`);
      await client.post(`/v1/bookings/${declined}/approve`);
      // A payment that fails after booking puts it in problem with the payment gate failed.
      expect((await client.post(`/v1/test/bookings/${declined}/payment/fail`)).status).toBe(402);
      expect((await client.get(`/v1/bookings/${declined}`)).body).toMatchObject({ state: 'problem', gates: { payment: 'failed' } });
      expect((await client.post(`/v1/test/bookings/${declined}/identity/verify`)).body).toMatchObject({ state: 'problem', events: ['identity.verified'] });
    } finally {
      await own.close();
    }
  });

  it('refuses documents that are not identity documents, not the caller’s, not uploaded, or not a sensible set, and starts nothing; and only before pickup', async () => {
    const booking = await paidBooking();
    const start = (documents: unknown, client = api, id = booking.id) => client.post(`/v1/bookings/${id}/identity-verification`, { documents });
    const photo = await uploadedImage(api, 'pickup_photo');
    const foreign = await document(other);
    const pending = (await api.post('/v1/files/upload-url', { purpose: 'identity_document', filename: 'id.png', content_type: 'image/png', size_bytes: TINY_PNG.length })).body.id;
    const front = await document();
    for (const [fileId, why] of [[photo, 'uploaded for pickup_photo, not identity_document'], [foreign, 'no such file'], [pending, 'pending_upload'], ['file_nope', 'no such file']]) {
      const refused = await start([{ kind: 'id_front', file_id: front }, { kind: 'id_back', file_id: fileId }]);
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ type: 'validation_error', code: 'file_not_usable', param: 'documents.1.file_id' });
      expect(refused.body.error.message).toContain(why);
    }
    for (const documents of [[], [{ kind: 'id_front', file_id: front }, { kind: 'id_front', file_id: front }], [{ kind: 'selfie', file_id: front }], [{ kind: 'passport', file_id: front }]]) {
      const refused = await start(documents);
      expect(refused.status).toBe(422);
      expect(refused.body.error.param).toMatch(/^documents/);
    }
    expect((await api.get(`/v1/bookings/${booking.id}/identity-verification`)).status).toBe(404);
    expect(await eventsOf(api, booking.id, 'identity.processing')).toEqual([]);
    // Another business's booking does not exist for this key, nor this one for theirs.
    expect((await start([{ kind: 'id_front', file_id: foreign }], other)).status).toBe(404);
    expect((await other.get(`/v1/bookings/${booking.id}/identity-verification`)).status).toBe(404);

    for (const step of ['agreement/sign', 'deposit/secure', 'identity/verify', 'pickup']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    const late = await start([{ kind: 'id_front', file_id: front }]);
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'active' });
  });

  it('hands out media as signed links that download the bytes until they expire within 5 minutes, and are refused when altered, moved to another business, or expired on the sandbox clock', async () => {
    const booking = await paidBooking();
    const [front, selfie] = [await document(), await document()];
    const started = await api.post(`/v1/bookings/${booking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: front }, { kind: 'selfie', file_id: selfie }] });
    expect(started.status).toBe(200);

    const media = await api.get(`/v1/bookings/${booking.id}/identity-verification/media`);
    // Made while the request ran, so at most 5 minutes after its answer came.
    const answered = Date.now();
    expect(media.status).toBe(200);
    expect(media.body).toEqual({
      object: 'identity_verification_media', booking_id: booking.id,
      data: [
        { kind: 'id_front', url: expect.stringContaining(`/v1/files/${front}/download?expires=`), expires_at: expect.any(String) },
        { kind: 'selfie', url: expect.stringContaining(`/v1/files/${selfie}/download?expires=`), expires_at: expect.any(String) },
      ],
    });
    const [frontLink, selfieLink] = media.body.data;
    expect(Date.parse(frontLink.expires_at) - answered).toBeLessThanOrEqual(5 * 60_000);
    expect(Number(new URL(frontLink.url).searchParams.get('expires')) * 1000).toBe(Date.parse(frontLink.expires_at));
    const download = await fetch(frontLink.url);
    expect(download.status).toBe(200);
    expect(download.headers.get('cache-control')).toBe('private, no-store');
    expect(Buffer.from(await download.arrayBuffer()).equals(TINY_PNG)).toBe(true);
    expect((await fetch(selfieLink.url)).status).toBe(200);

    // Altered in any part: the signature, the expiry, the file.
    const url = new URL(frontLink.url);
    const forged = new URL(url);
    // Its first character changed: every bit of it counts (the last one's low bits may not).
    const signature = url.searchParams.get('signature')!;
    forged.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    const longer = new URL(url);
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const swapped = frontLink.url.replace(front, selfie);
    for (const altered of [forged.toString(), longer.toString(), swapped, frontLink.url.split('?')[0]]) {
      const res = await fetch(altered);
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).error).toMatchObject({ type: 'authorization_error', code: 'file_link_invalid' });
    }

    // Another business's identity document through this link's signature: refused; their key sees no media of ours.
    const theirBooking = await paidBooking(other);
    const theirs = await document(other);
    expect((await other.post(`/v1/bookings/${theirBooking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: theirs }] })).status).toBe(200);
    expect((await fetch(frontLink.url.replace(front, theirs))).status).toBe(403);
    expect((await other.get(`/v1/bookings/${booking.id}/identity-verification/media`)).status).toBe(404);
    expect((await live.get(`/v1/bookings/${booking.id}/identity-verification/media`)).status).toBe(404);
    const theirMedia = (await other.get(`/v1/bookings/${theirBooking.id}/identity-verification/media`)).body.data[0];
    expect((await fetch(theirMedia.url)).status).toBe(200);

    // Permission identity:read, checked before anything is read.
    const restricted = await createApiKey(t.db.prisma, { businessId: t.business.business_id, livemode: false, kind: 'secret', permissions: ['bookings:read', 'files:read'] });
    const denied = await restClient(t.baseUrl, restricted.key).get(`/v1/bookings/${booking.id}/identity-verification/media`);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'permission_denied' });
    expect(denied.body.error.message).toContain('identity:read');

    const viaGraphql = await gql(`query($bookingId: ID!) { identityVerificationMedia(bookingId: $bookingId) { bookingId data { kind url expiresAt } } }`, { bookingId: booking.id });
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data.identityVerificationMedia.data.map((m: any) => m.kind)).toEqual(['id_front', 'selfie']);
    expect((await fetch(viaGraphql.data.identityVerificationMedia.data[1].url)).status).toBe(200);

    // Five minutes and a second later on the sandbox clock, the links are refused; new ones work.
    expect((await api.post('/v1/test/clock/advance', { seconds: 301 })).status).toBe(200);
    const expired = await fetch(frontLink.url);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as any).error.message).toMatch(/expired/);
    const fresh = (await api.get(`/v1/bookings/${booking.id}/identity-verification/media`)).body.data[0];
    expect(Date.parse(fresh.expires_at)).toBeGreaterThan(Date.parse(frontLink.expires_at) + 300_000);
    expect((await fetch(fresh.url)).status).toBe(200);
    // Another business's clock did not move: its link still works.
    expect((await fetch(theirMedia.url)).status).toBe(200);

    // A document is kept while the booking uses its verification; once the booking is over it may be erased, and has no media any more.
    const inUse = await api.call('DELETE', `/v1/files/${selfie}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.error).toMatchObject({ code: 'file_in_use', message: expect.stringContaining(`identity verification ${started.body.id} of booking ${booking.id}`) });
    expect((await api.post(`/v1/bookings/${booking.id}/cancel`)).status).toBe(200);
    expect((await api.call('DELETE', `/v1/files/${selfie}`)).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}/identity-verification/media`)).body.data.map((m: any) => m.kind)).toEqual(['id_front']);
  });

  it('live keys verify through Stripe Identity: a VerificationSession with the booking in its metadata, its signed verdict applied once, a restart on a new session', async () => {
    const booking = await createBooking(live, liveVehicleId);
    const [front, selfie] = [await document(live), await document(live)];
    const started = await live.post(`/v1/bookings/${booking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: front }, { kind: 'selfie', file_id: selfie }] }, { 'idempotency-key': `idv-${booking.id}` });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ livemode: true, state: 'processing', provider: 'stripe_identity' });
    const session = [...stripe.verificationSessions.values()].find((s) => s.metadata.booking_id === booking.id)!;
    expect(session).toMatchObject({ type: 'document', status: 'requires_input', metadata: { booking_id: booking.id, purpose: 'identity_verification' }, provided_details: { email: 'ada@example.com' } });
    expect(session.options).toMatchObject({ document: { require_matching_selfie: 'true' } });
    expect(started.body.client_secret).toBe(session.client_secret);
    const call = stripe.requests.find((r) => r.path === '/v1/identity/verification_sessions' && (r.params.metadata as any)?.booking_id === booking.id)!;
    expect(call.idempotencyKey).toBe(`identity:${booking.id}:new:idv-${booking.id}`);
    // The replay answers the first response; Stripe saw one session.
    const replay = await live.post(`/v1/bookings/${booking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: front }, { kind: 'selfie', file_id: selfie }] }, { 'idempotency-key': `idv-${booking.id}` });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect([...stripe.verificationSessions.values()].filter((s) => s.metadata.booking_id === booking.id)).toHaveLength(1);

    const rejected = stripe.identityVerdict(session.id, { code: 'document_unverified_other', reason: 'The document was not valid.' });
    expect((await deliver(rejected, 't=1,v1=bad')).status).toBe(400);
    const deliveries = await Promise.all(Array.from({ length: 4 }, () => deliver(rejected)));
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200]);
    expect(deliveries.map((d) => d.body.outcome).sort()).toEqual(['applied', 'duplicate', 'duplicate', 'duplicate']);
    expect(deliveries[0].body).toMatchObject({ object: 'processor_event', id: rejected.id, type: 'identity.verification_session.requires_input', booking_id: booking.id });
    expect((await live.get(`/v1/bookings/${booking.id}/identity-verification`)).body).toMatchObject({ state: 'rejected', failure_code: 'document_unverified_other' });
    expect((await live.get(`/v1/bookings/${booking.id}`)).body.gates.identity).toBe('failed');
    expect(await eventsOf(live, booking.id, 'identity.rejected')).toHaveLength(1);

    const restarted = await live.post(`/v1/bookings/${booking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: await document(live) }] });
    expect(restarted.status).toBe(200);
    const second = [...stripe.verificationSessions.values()].filter((s) => s.metadata.booking_id === booking.id).find((s) => s.id !== session.id)!;
    expect(second.options).toMatchObject({ document: { require_matching_selfie: 'false' } });
    // A late verdict on the first session decides nothing: the verification waits for the second.
    expect((await deliver(stripe.identityVerdict(session.id, 'verified'))).body.outcome).toMatch(/^ignored: /);
    expect((await live.get(`/v1/bookings/${booking.id}/identity-verification`)).body.state).toBe('processing');
    const verified = await deliver(stripe.identityVerdict(second.id, 'verified'));
    expect(verified.body).toMatchObject({ outcome: 'applied', booking_id: booking.id });
    expect((await live.get(`/v1/bookings/${booking.id}/identity-verification`)).body).toMatchObject({ state: 'verified', failure_code: null, provider: 'stripe_identity' });
    expect((await live.get(`/v1/bookings/${booking.id}`)).body.gates.identity).toBe('satisfied');
    expect(await eventsOf(live, booking.id, 'identity.verified')).toHaveLength(1);
    expect((await deliver(stripe.identityVerdict(second.id, 'verified'))).body.outcome).toMatch(/^ignored: the verification is 'verified'/);
    // Sandbox keys never reach Stripe.
    expect(stripe.requests.filter((r) => r.path.startsWith('/v1/identity/')).every((r) => (r.params.metadata as any)?.booking_id?.startsWith('bk_'))).toBe(true);
  });

  it('answers 502 and starts nothing when Stripe does not answer, or when live verification is not configured', async () => {
    const booking = await createBooking(live, liveVehicleId);
    const front = await document(live);
    stripe.hangNext('POST /v1/identity/verification_sessions');
    const unanswered = await live.post(`/v1/bookings/${booking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: front }] });
    expect(unanswered.status).toBe(502);
    expect(unanswered.body.error).toMatchObject({ type: 'integration_error', code: 'identity_provider_unavailable' });
    expect((await live.get(`/v1/bookings/${booking.id}/identity-verification`)).status).toBe(404);

    const bare = await startTestApp(engine);
    try {
      const liveKey = restClient(bare.baseUrl, bare.business.live_secret_key);
      const liveBooking = await createBooking(liveKey, (await createVehicle(liveKey)).id);
      const refused = await liveKey.post(`/v1/bookings/${liveBooking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: await document(liveKey) }] });
      expect(refused.status).toBe(502);
      expect(refused.body.error).toMatchObject({ type: 'integration_error', code: 'identity_provider_not_configured' });
      expect((await liveKey.get(`/v1/bookings/${liveBooking.id}/identity-verification`)).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
