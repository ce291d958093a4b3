import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, paidBookingStartingSoon } from './support/fixtures.ts';
import { pdfText } from './support/pdf-text.ts';

/*
 * The rental agreement in production: rendered from the booking into a PDF, sent to the
 * customer as a signing link in a message, signed by the customer through that link (no API
 * key), which satisfies the booking's agreement gate. Links that are expired, altered, for a
 * replaced version or another business's agreement are refused and change nothing.
 */

const cents = (c: number) => `${Math.floor(c / 100).toLocaleString('en-US')}.${String(c % 100).padStart(2, '0')} USD`;

describe.each(ENGINES)('rental agreement on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  let otherApi: ReturnType<typeof restClient>;
  /** The customer's browser: no key. */
  let anonymous: ReturnType<typeof restClient>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    otherApi = restClient(t.baseUrl, t.other.test_secret_key);
    anonymous = restClient(t.baseUrl, null);
  });
  afterAll(async () => t?.close());

  /** The path and query of a link, for the keyless client. */
  const pathOf = (link: string) => {
    const url = new URL(link);
    expect(url.origin).toBe(t.baseUrl);
    return url.pathname + url.search;
  };
  const download = async (fileId: string, client = api) => {
    const file = (await client.get(`/v1/files/${fileId}`)).body;
    const res = await fetch(file.download_url);
    expect(res.status).toBe(200);
    return { file, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const agreementRows = async (bookingId: string) => ({
    agreement: await t.db.prisma.agreement.findFirst({ where: { bookingId }, orderBy: { createdAt: 'desc' } }),
    booking: await t.db.prisma.booking.findUniqueOrThrow({ where: { id: bookingId } }),
    events: await t.db.prisma.event.count({ where: { bookingId } }),
  });

  it('renders the booking into a PDF, sends its link by email, and the customer signs through it: the gate is met and the booking becomes ready', async () => {
    const booking = await paidBookingStartingSoon(api, { days: 2 });
    for (const step of ['identity/verify', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'confirmed', gates: { agreement: 'pending' } });
    expect((await api.get(`/v1/bookings/${booking.id}/agreement`)).status).toBe(404);

    const created = await api.post(`/v1/bookings/${booking.id}/agreement`);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'agreement', booking_id: booking.id, state: 'draft', version: 1, file_id: expect.stringMatching(/^file_/),
      document_sha256: expect.stringMatching(/^[0-9a-f]{64}$/), sent_at: null, signed_at: null, signer: null, signing_url: null, next_states: ['sent', 'signed', 'voided'],
    });

    // The document is a real PDF, stored as a file, whose bytes hash to what the agreement keeps.
    const { file, bytes } = await download(created.body.file_id);
    expect(file).toMatchObject({ purpose: 'agreement', content_type: 'application/pdf', state: 'uploaded', sha256: created.body.document_sha256 });
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(created.body.document_sha256);
    const text = await pdfText(bytes);
    for (const expected of [`Booking ${booking.id}`, 'Name: Ada Lovelace', `Total: ${cents(booking.total_cents)}`, `Security deposit (held, not charged): ${cents(booking.deposit_cents)}`, 'Included miles: 400', 'Toyota Corolla', 'Terms'])
      expect(text).toContain(expected);

    // Sent by email: the link is in the answer and in the message, nowhere else.
    const sent = await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'email' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ state: 'sent', sent_via: 'email', sent_at: expect.any(String), signing_url: expect.stringContaining(`/v1/agreements/${created.body.id}/sign?`), message_id: expect.stringMatching(/^msg_/) });
    const link = sent.body.signing_url as string;
    expect(new Date(sent.body.signing_url_expires_at).getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const message = await t.db.prisma.message.findUniqueOrThrow({ where: { id: sent.body.message_id }, include: { conversation: true } });
    expect(message).toMatchObject({ channel: 'email', direction: 'outbound', bookingId: booking.id, conversation: { customerId: booking.customer_id, channel: 'email' } });
    expect(message.body).toContain(link);
    const events = (await api.get(`/v1/events?booking_id=${booking.id}`)).body.data as { type: string; data: { object: Record<string, unknown> } }[];
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['agreement.created', 'agreement.sent', 'message.created']));
    for (const event of events) expect(JSON.stringify(event)).not.toContain('signature=');
    expect(events.find((e) => e.type === 'message.created')!.data.object.body).toContain('[withheld]');
    expect((await api.get(`/v1/bookings/${booking.id}/agreement`)).body.signing_url).toBeNull();

    // The customer opens the link: the summary and a short-lived link to the same PDF.
    const page = await anonymous.get(pathOf(link));
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toContain('no-store');
    expect(page.body).toMatchObject({
      object: 'agreement_signing', agreement_id: created.body.id, booking_id: booking.id, business_name: 'Test Rentals', state: 'sent', version: 1,
      customer_name: 'Ada Lovelace', total_cents: booking.total_cents, document_sha256: created.body.document_sha256, signed_at: null,
    });
    const shown = await fetch(page.body.document_url);
    expect(createHash('sha256').update(Buffer.from(await shown.arrayBuffer())).digest('hex')).toBe(created.body.document_sha256);

    // Signing needs a name and an explicit acceptance; a refused attempt writes nothing.
    const before = await agreementRows(booking.id);
    expect((await anonymous.post(pathOf(link), { signer_name: 'Ada Lovelace', accept: false })).body.error).toMatchObject({ code: 'agreement_not_accepted', param: 'accept' });
    expect((await anonymous.post(pathOf(link), { accept: true })).body.error).toMatchObject({ code: 'parameter_missing', param: 'signer_name' });
    expect((await anonymous.post(pathOf(link), 'not json')).body.error).toMatchObject({ code: 'invalid_json' });
    expect(await agreementRows(booking.id)).toEqual(before);

    const signed = await anonymous.post(pathOf(link), { signer_name: 'Ada Lovelace', accept: true }, { 'user-agent': 'Signing browser/1.0' });
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ state: 'signed', signer_name: 'Ada Lovelace', signed_at: expect.any(String) });
    const agreement = (await api.get(`/v1/bookings/${booking.id}/agreement`)).body;
    expect(agreement).toMatchObject({
      state: 'signed', next_states: ['voided'], signed_at: expect.any(String),
      signer: { name: 'Ada Lovelace', ip: expect.stringMatching(/127\.0\.0\.1|::1/), user_agent: 'Signing browser/1.0', document_sha256: created.body.document_sha256 },
    });
    expect((await api.get(`/v1/bookings/${booking.id}/agreement/status`)).body).toEqual({
      object: 'agreement_status', booking_id: booking.id, state: 'signed', next_states: ['voided'], sent_at: sent.body.sent_at, signed_at: agreement.signed_at, signed_by: 'Ada Lovelace',
    });
    // Every gate is met: the booking is ready for pickup.
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'ready_for_pickup', gates: { agreement: 'satisfied' } });
    const after = (await api.get(`/v1/events?booking_id=${booking.id}`)).body.data.map((e: { type: string }) => e.type);
    expect(after.slice(0, 2)).toEqual(['pickup.ready', 'agreement.signed']);

    // Signed is final: no second signature, no new document.
    const again = await anonymous.post(pathOf(link), { signer_name: 'Someone Else', accept: true });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_state_transition' });
    const recreate = await api.post(`/v1/bookings/${booking.id}/agreement`);
    expect(recreate.status).toBe(409);
    expect(recreate.body.error).toMatchObject({ code: 'invalid_state_transition', object: 'agreement', current_state: 'signed' });
    expect((await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'sms' })).status).toBe(409);
  });

  it('voids a signed agreement with a reason: its link stops working, the gate is pending again and the ready booking back to confirmed, in one transaction with agreement.voided; a new agreement can then be created and signed', async () => {
    const booking = await paidBookingStartingSoon(api, { days: 2 });
    for (const step of ['identity/verify', 'deposit/secure']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    const first = (await api.post(`/v1/bookings/${booking.id}/agreement`)).body;
    const link = (await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'email' })).body.signing_url as string;
    expect((await anonymous.post(pathOf(link), { signer_name: 'Ada Lovelace', accept: true })).status).toBe(200);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.state).toBe('ready_for_pickup');

    // A reason is required; nothing changes without one.
    const before = await agreementRows(booking.id);
    const noReason = await api.post(`/v1/bookings/${booking.id}/agreement/void`, {});
    expect(noReason.status).toBe(422);
    expect(noReason.body.error).toMatchObject({ type: 'validation_error', param: 'reason' });
    expect(await agreementRows(booking.id)).toEqual(before);

    const voided = await api.post(`/v1/bookings/${booking.id}/agreement/void`, { reason: 'A second driver was added' });
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({ object: 'agreement', id: first.id, booking_id: booking.id, state: 'voided', next_states: [], void_reason: 'A second driver was added', voided_at: expect.any(String), signed_at: expect.any(String) });
    expect((await api.get(`/v1/bookings/${booking.id}/agreement`)).body).toMatchObject({ id: first.id, state: 'voided' });
    expect((await api.get(`/v1/bookings/${booking.id}`)).body).toMatchObject({ state: 'confirmed', gates: { agreement: 'pending' } });
    const events = (await api.get(`/v1/events?booking_id=${booking.id}&limit=100`)).body.data as { type: string; request: { id: string }; data: { object: Record<string, unknown> } }[];
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['booking.confirmed', 'agreement.voided']);
    expect(events[1].data.object).toMatchObject({ object: 'agreement', id: first.id, state: 'voided', void_reason: 'A second driver was added' });
    expect(events[0].request.id).toBe(events[1].request.id);
    // Voided is final; its link is refused, and its document is no longer in use.
    expect((await api.post(`/v1/bookings/${booking.id}/agreement/void`, { reason: 'again' })).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'voided' });
    for (const refused of [await anonymous.get(pathOf(link)), await anonymous.post(pathOf(link), { signer_name: 'Ada Lovelace', accept: true })]) {
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'agreement_link_invalid', message: expect.stringContaining('voided') });
    }
    expect((await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'email' })).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'voided' });

    // Created again: a new agreement, version 1, the current one; the voided one is kept as it was.
    const second = await api.post(`/v1/bookings/${booking.id}/agreement`);
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ state: 'draft', version: 1, void_reason: null, signed_at: null });
    expect(second.body.id).not.toBe(first.id);
    expect((await api.get(`/v1/bookings/${booking.id}/agreement/status`)).body).toMatchObject({ state: 'draft' });
    expect(await t.db.prisma.agreement.findUniqueOrThrow({ where: { id: first.id } })).toMatchObject({ state: 'voided', signerName: 'Ada Lovelace' });
    expect((await api.call('DELETE', `/v1/files/${first.file_id}`)).status).toBe(200);
    expect((await api.call('DELETE', `/v1/files/${second.body.file_id}`)).body.error).toMatchObject({ code: 'file_in_use' });
    expect((await api.post(`/v1/test/bookings/${booking.id}/agreement/sign`)).body).toMatchObject({ state: 'ready_for_pickup' });
    expect((await api.get(`/v1/bookings/${booking.id}/agreement`)).body).toMatchObject({ id: second.body.id, state: 'signed' });
  });

  it('voids over GraphQL; a booking without an agreement is 404, a canceled booking 409, and a voided one the sandbox signs anew', async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    const mutation = `mutation($bookingId: ID!, $input: VoidAgreementInput!) { voidAgreement(bookingId: $bookingId, input: $input) { id state voidReason voidedAt nextStates booking { gates { agreement } } } }`;
    const none = await gql(mutation, { bookingId: booking.id, input: { reason: 'Wrong renter' } });
    expect(none.errors?.[0].extensions).toMatchObject({ code: 'resource_missing' });
    expect((await api.post(`/v1/bookings/${booking.id}/agreement/void`, { reason: 'Wrong renter' })).status).toBe(404);

    const draft = (await api.post(`/v1/bookings/${booking.id}/agreement`)).body;
    const res = await gql(mutation, { bookingId: booking.id, input: { reason: 'Wrong renter' } });
    expect(res.errors).toBeUndefined();
    expect(res.data.voidAgreement).toMatchObject({ id: draft.id, state: 'voided', voidReason: 'Wrong renter', voidedAt: expect.any(String), nextStates: [], booking: { gates: { agreement: 'pending' } } });
    // The sandbox signer signs a new agreement, leaving the voided one as it was.
    expect((await api.post(`/v1/test/bookings/${booking.id}/agreement/sign`)).status).toBe(200);
    const current = (await api.get(`/v1/bookings/${booking.id}/agreement`)).body;
    expect(current).toMatchObject({ state: 'signed', signer: { name: 'Sandbox signer' } });
    expect(current.id).not.toBe(draft.id);
    expect((await api.get(`/v1/bookings/${booking.id}`)).body.gates.agreement).toBe('satisfied');

    expect((await api.post(`/v1/bookings/${booking.id}/cancel`)).status).toBe(200);
    const canceled = await api.post(`/v1/bookings/${booking.id}/agreement/void`, { reason: 'Canceled' });
    expect(canceled.status).toBe(409);
    expect(canceled.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'canceled' });
    expect((await otherApi.post(`/v1/bookings/${booking.id}/agreement/void`, { reason: 'Not mine' })).status).toBe(404);
  });

  it('sends on the chosen channel: sms and in_app messages in their own conversations; email needs an address', async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    expect((await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'sms' })).status).toBe(404);
    await api.post(`/v1/bookings/${booking.id}/agreement`);
    const sms = await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'sms' });
    expect(sms.body).toMatchObject({ state: 'sent', sent_via: 'sms' });
    const inApp = await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'in_app' });
    expect(inApp.body).toMatchObject({ state: 'sent', sent_via: 'in_app' });
    const messages = await t.db.prisma.message.findMany({ where: { id: { in: [sms.body.message_id, inApp.body.message_id] } }, orderBy: { id: 'asc' } });
    expect(messages.map((m) => [m.channel, m.body.includes(sms.body.signing_url) || m.body.includes(inApp.body.signing_url)])).toEqual([['sms', true], ['in_app', true]]);
    expect((await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'fax' })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'channel' });

    const noEmail = await createBooking(api, (await createVehicle(api)).id, { customer: { name: 'Grace Hopper', phone: '+1 512 555 0101' } });
    await api.post(`/v1/bookings/${noEmail.id}/agreement`);
    const refused = await api.post(`/v1/bookings/${noEmail.id}/agreement/send`, { channel: 'email' });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'parameter_invalid', param: 'channel' });
    expect((await api.get(`/v1/bookings/${noEmail.id}/agreement/status`)).body).toMatchObject({ state: 'draft', sent_at: null });
  });

  it('refuses altered links, links to a replaced version and links of another business, writing nothing', async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    const first = (await api.post(`/v1/bookings/${booking.id}/agreement`)).body;
    const oldLink = (await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'email' })).body.signing_url as string;

    // A new document while sent: version 2, back to draft; the old link is superseded.
    const second = await api.post(`/v1/bookings/${booking.id}/agreement`);
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ id: first.id, version: 2, state: 'draft', sent_at: null });
    expect(second.body.file_id).not.toBe(first.file_id);
    const newLink = (await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'email' })).body.signing_url as string;

    const otherBooking = await createBooking(otherApi, (await createVehicle(otherApi)).id);
    const foreign = (await otherApi.post(`/v1/bookings/${otherBooking.id}/agreement`)).body;
    await otherApi.post(`/v1/bookings/${otherBooking.id}/agreement/send`, { channel: 'email' });

    const url = new URL(newLink);
    const altered = (change: (u: URL) => void) => {
      const copy = new URL(url);
      change(copy);
      return copy.pathname + copy.search;
    };
    const refusals: [string, string][] = [
      [pathOf(oldLink), 'replaced'],
      [altered((u) => u.searchParams.set('version', '1')), 'not valid'],
      [altered((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 86_400))), 'not valid'],
      [altered((u) => u.searchParams.set('signature', u.searchParams.get('signature')!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')))), 'not valid'],
      [altered((u) => u.searchParams.delete('signature')), 'not valid'],
      [altered((u) => (u.pathname = `/v1/agreements/${foreign.id}/sign`)), 'not valid'],
      [altered((u) => (u.pathname = '/v1/agreements/agr_doesnotexist/sign')), 'not valid'],
    ];
    const before = { mine: await agreementRows(booking.id), theirs: await agreementRows(otherBooking.id) };
    for (const [path, why] of refusals) {
      for (const res of [await anonymous.get(path), await anonymous.post(path, { signer_name: 'Mallory', accept: true })]) {
        expect(res.status, path).toBe(403);
        expect(res.body.error).toMatchObject({ type: 'authorization_error', code: 'agreement_link_invalid', message: expect.stringContaining(why) });
      }
    }
    expect({ mine: await agreementRows(booking.id), theirs: await agreementRows(otherBooking.id) }).toEqual(before);
    expect((await anonymous.call('PUT', pathOf(newLink), {})).status).toBe(405);

    // The current link still works.
    const signed = await anonymous.post(pathOf(newLink), { signer_name: 'Ada Lovelace', accept: true });
    expect(signed.body).toMatchObject({ state: 'signed', version: 2 });
    const agreement = (await api.get(`/v1/bookings/${booking.id}/agreement`)).body;
    expect(agreement.signer.document_sha256).toBe(second.body.document_sha256);
    expect(agreement.signer.document_sha256).not.toBe(first.document_sha256);
  });

  it('opens as a page in a browser, whose form signs; a refused link is a page too', async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id, { customer: { name: 'Zoë <b>Ünal</b>', email: 'zoe@example.com' } });
    await api.post(`/v1/bookings/${booking.id}/agreement`);
    const link = pathOf((await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'email' })).body.signing_url);
    const browser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    const page = await anonymous.get(link, browser);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.body).toContain('Zoë &#60;b&#62;Ünal&#60;/b&#62;');
    expect(page.body).not.toContain('<b>Ünal');
    expect(page.body).toContain(`action="${link.replace(/&/g, '&#38;')}"`);
    expect(page.body).toMatch(/<a href="[^"]+\/download\?[^"]+">Read the agreement \(PDF\)<\/a>/);

    const form = (fields: string) => anonymous.call('POST', link, fields, { 'content-type': 'application/x-www-form-urlencoded', ...browser });
    const unaccepted = await form('signer_name=Zo%C3%AB+%C3%9Cnal');
    expect(unaccepted.status).toBe(422);
    expect(unaccepted.body).toContain('accept');
    const signed = await form('signer_name=Zo%C3%AB+%C3%9Cnal&accept=true');
    expect(signed.status).toBe(200);
    expect(signed.body).toContain('Signed by Zoë Ünal');
    expect((await api.get(`/v1/bookings/${booking.id}/agreement`)).body.signer).toMatchObject({ name: 'Zoë Ünal', ip: expect.any(String) });

    const refused = await anonymous.get(link.replace(/signature=(.)/, (_m, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`), browser);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('This signing link is not valid');
  });

  it('keeps the sandbox signature working, as the sandbox signer, on a sent agreement and without one', async () => {
    const withDocument = await createBooking(api, (await createVehicle(api)).id);
    const created = (await api.post(`/v1/bookings/${withDocument.id}/agreement`)).body;
    await api.post(`/v1/bookings/${withDocument.id}/agreement/send`, { channel: 'in_app' });
    const sandbox = await api.post(`/v1/test/bookings/${withDocument.id}/agreement/sign`);
    expect(sandbox.status).toBe(200);
    expect((await api.get(`/v1/bookings/${withDocument.id}/agreement`)).body).toMatchObject({
      state: 'signed', signer: { name: 'Sandbox signer', ip: null, user_agent: 'sandbox', document_sha256: created.document_sha256 },
    });

    const bare = await createBooking(api, (await createVehicle(api)).id);
    expect((await api.post(`/v1/test/bookings/${bare.id}/agreement/sign`)).status).toBe(200);
    expect((await api.get(`/v1/bookings/${bare.id}/agreement`)).body).toMatchObject({ state: 'signed', version: 0, file_id: null, signer: { name: 'Sandbox signer', document_sha256: null } });
    expect((await api.post(`/v1/bookings/${bare.id}/agreement`)).status).toBe(409);
    expect((await api.get(`/v1/bookings/${bare.id}`)).body.gates.agreement).toBe('satisfied');
  });

  it('creates, reads, sends and reads the status over GraphQL; another business sees none of it', async () => {
    const booking = await createBooking(api, (await createVehicle(api)).id);
    const fields = 'id state version fileId documentSha256 sentVia nextStates signingUrl file { purpose sha256 } booking { id }';
    const created = await gql(`mutation($id: ID!) { createAgreement(bookingId: $id) { ${fields} } }`, { id: booking.id });
    expect(created.errors).toBeUndefined();
    expect(created.data.createAgreement).toMatchObject({ state: 'draft', version: 1, signingUrl: null, nextStates: ['sent', 'signed', 'voided'], booking: { id: booking.id } });
    expect(created.data.createAgreement.file.sha256).toBe(created.data.createAgreement.documentSha256);
    const sent = await gql(`mutation($id: ID!) { sendAgreement(bookingId: $id, input: { channel: sms }) { state sentVia signingUrl signingUrlExpiresAt messageId } }`, { id: booking.id });
    expect(sent.errors).toBeUndefined();
    expect(sent.data.sendAgreement).toMatchObject({ state: 'sent', sentVia: 'sms', signingUrl: expect.stringContaining('/sign?'), messageId: expect.stringMatching(/^msg_/) });
    const read = await gql(`query($id: ID!) { bookingAgreement(bookingId: $id) { state signingUrl signer { name } } agreementStatus(bookingId: $id) { bookingId state nextStates sentAt signedBy } }`, { id: booking.id });
    expect(read.data).toEqual({
      bookingAgreement: { state: 'sent', signingUrl: null, signer: null },
      agreementStatus: { bookingId: booking.id, state: 'sent', nextStates: ['draft', 'signed', 'voided'], sentAt: expect.any(String), signedBy: null },
    });
    await anonymous.post(pathOf(sent.data.sendAgreement.signingUrl), { signer_name: 'Ada Lovelace', accept: true });
    const status = await gql(`query($id: ID!) { agreementStatus(bookingId: $id) { state signedBy } }`, { id: booking.id });
    expect(status.data.agreementStatus).toEqual({ state: 'signed', signedBy: 'Ada Lovelace' });
    const again = await gql(`mutation($id: ID!) { createAgreement(bookingId: $id) { id } }`, { id: booking.id });
    expect(again.errors?.[0].extensions).toMatchObject({ code: 'invalid_state_transition', current_state: 'signed' });

    for (const path of ['/agreement', '/agreement/status']) expect((await otherApi.get(`/v1/bookings/${booking.id}${path}`)).status).toBe(404);
    expect((await otherApi.post(`/v1/bookings/${booking.id}/agreement`)).status).toBe(404);
  });

  it('refuses a canceled booking, and a link once it has expired (the sandbox clock moves past its 7 days)', async () => {
    const canceled = await createBooking(otherApi, (await createVehicle(otherApi)).id);
    expect((await otherApi.post(`/v1/bookings/${canceled.id}/cancel`)).status).toBe(200);
    expect((await otherApi.post(`/v1/bookings/${canceled.id}/agreement`)).body.error).toMatchObject({ code: 'invalid_state_transition', object: 'booking', current_state: 'canceled' });

    const booking = await createBooking(otherApi, (await createVehicle(otherApi)).id);
    await otherApi.post(`/v1/bookings/${booking.id}/agreement`);
    const link = (await otherApi.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'email' })).body.signing_url as string;
    expect((await anonymous.get(pathOf(link))).status).toBe(200);
    expect((await otherApi.post('/v1/test/clock/advance', { seconds: 7 * 86_400 + 60 })).status).toBe(200);
    const before = await agreementRows(booking.id);
    for (const res of [await anonymous.get(pathOf(link)), await anonymous.post(pathOf(link), { signer_name: 'Ada Lovelace', accept: true })]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'agreement_link_invalid', message: expect.stringContaining('expired') });
    }
    expect(await agreementRows(booking.id)).toEqual(before);
  });
});
