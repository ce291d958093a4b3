import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingSender } from '../src/messaging/sandbox-sender.ts';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { startLoopbackSmtp, type LoopbackSmtp } from './support/smtp-server.ts';

/*
 * Conversations and the channels that carry messages: an email goes out over SMTP (a real
 * SMTP server on loopback receives it), an SMS through the sandbox's recording provider, an
 * in_app message is stored; card numbers are redacted before anything is stored or sent;
 * a mail server that is down leaves the email queued until a later sweep delivers it.
 */

const CARD_TEXT = 'Card on file 4242 4242 4242 4242, cvc 123. Pickup at 10:30.';

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe.each(ENGINES)('conversations and message delivery on %s', (engine) => {
  let t: TestApp;
  let smtp: LoopbackSmtp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    smtp = await startLoopbackSmtp();
    t = await startTestApp(engine, { messaging: { smtpUrl: undefined, sandboxSmtpUrl: smtp.url, from: 'bookings@rentals.test' } });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('emails a booking message over SMTP, redacted, and shows it sent in the conversation', async () => {
    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id, { customer: { name: 'Grace Hopper', email: 'grace@example.com', phone: '+1 512 555 0199' } });

    const res = await api.post(`/v1/bookings/${booking.id}/messages`, { channel: 'email', body: CARD_TEXT });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'message', booking_id: booking.id, channel: 'email', direction: 'outbound', state: 'sent', recipient: 'grace@example.com',
      redacted: true, failure_code: null, delivery_attempts: 1, sent_at: expect.any(String),
    });
    expect(res.body.body).not.toContain('4242');

    const mail = await smtp.waitFor((m) => m.text?.includes('Pickup at 10:30') === true);
    expect(mail.to).toMatchObject({ value: [{ address: 'grace@example.com' }] });
    expect(mail.from?.value[0]).toMatchObject({ address: 'bookings@rentals.test', name: 'Test Rentals' });
    expect(mail.subject).toBe(`Test Rentals: about your booking ${booking.id}`);
    expect(mail.messageId).toContain(res.body.id);
    expect(mail.text).not.toMatch(/4242|cvc 123/);
    expect(mail.text?.trim()).toBe(res.body.body);

    const events = await api.get(`/v1/events?booking_id=${booking.id}`);
    const types = events.body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['message.created', 'message.sent']));
    const sent = events.body.data.find((e: { type: string }) => e.type === 'message.sent');
    expect(JSON.stringify(sent)).not.toContain('4242');

    const conversation = await api.get(`/v1/conversations/${res.body.conversation_id}`);
    expect(conversation.status).toBe(200);
    expect(conversation.body).toMatchObject({ object: 'conversation', channel: 'email', customer_id: booking.customer_id, booking_id: booking.id, message_count: 1 });
    expect(conversation.body.messages).toEqual([expect.objectContaining({ object: 'message', id: res.body.id, state: 'sent' })]);
  });

  it('sends an SMS through the sandbox provider, which records exactly what the customer would read', async () => {
    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id, { customer: { name: 'Alan Turing', email: 'alan@example.com', phone: '+44 20 7946 0018' } });
    const res = await api.post(`/v1/bookings/${booking.id}/messages`, { channel: 'sms', body: CARD_TEXT });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ channel: 'sms', state: 'sent', recipient: '+44 20 7946 0018', redacted: true });
    const recorded = (t.app.messaging.test.sms as RecordingSender).sent.find((m) => m.id === res.body.id);
    expect(recorded).toMatchObject({ channel: 'sms', to: '+44 20 7946 0018' });
    expect(recorded!.text).toBe(res.body.body);
    expect(recorded!.text).not.toContain('4242');
  });

  it('lists conversations by customer and channel, and continues one with POST .../messages, over REST and GraphQL', async () => {
    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id, { customer: { name: 'Katherine Johnson', email: 'katherine@example.com' } });
    const first = await api.post(`/v1/bookings/${booking.id}/messages`, { channel: 'in_app', body: 'Welcome aboard.' });
    expect(first.body).toMatchObject({ channel: 'in_app', state: 'sent', recipient: null, delivery_attempts: 0 });
    const email = await api.post(`/v1/bookings/${booking.id}/messages`, { channel: 'email', body: 'Your receipt is attached.' });
    expect(email.body.conversation_id).not.toBe(first.body.conversation_id);

    const customerId = booking.customer_id as string;
    const all = await api.get(`/v1/conversations?customer_id=${customerId}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false, url: '/v1/conversations' });
    expect(all.body.data.map((c: { channel: string }) => c.channel)).toEqual(['email', 'in_app']);
    const inApp = await api.get(`/v1/conversations?customer_id=${customerId}&channel=in_app`);
    expect(inApp.body.data.map((c: { id: string }) => c.id)).toEqual([first.body.conversation_id]);
    expect((await api.get('/v1/conversations?channel=fax')).status).toBe(422);

    const reply = await api.post(`/v1/conversations/${first.body.conversation_id}/messages`, { body: 'Need anything else?' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ conversation_id: first.body.conversation_id, channel: 'in_app', booking_id: booking.id, state: 'sent' });
    expect((await api.post(`/v1/conversations/${first.body.conversation_id}/messages`, { body: 'x', channel: 'sms' })).status).toBe(422);

    const { data, errors } = await gql(
      `query($customerId: ID) { conversations(customerId: $customerId, channel: in_app, first: 5) { edges { node { id channel messageCount messages { body state } customer { name } } } } }`,
      { customerId },
    );
    expect(errors).toBeUndefined();
    expect(data.conversations.edges).toEqual([
      { node: { id: first.body.conversation_id, channel: 'in_app', messageCount: 2, messages: [{ body: 'Need anything else?', state: 'sent' }, { body: 'Welcome aboard.', state: 'sent' }], customer: { name: 'Katherine Johnson' } } },
    ]);
    const sent = await gql(`mutation($id: ID!) { sendBookingMessage(bookingId: $id, input: { channel: in_app, body: "See you soon." }) { id state conversation { id } } }`, { id: booking.id });
    expect(sent.errors).toBeUndefined();
    expect(sent.data.sendBookingMessage).toMatchObject({ state: 'sent', conversation: { id: first.body.conversation_id } });
  });

  it('fails an SMS to a customer with no phone number, and a live email while no mail server is configured, with their codes', async () => {
    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id, { customer: { name: 'No Phone', email: 'nophone@example.com' } });
    const res = await api.post(`/v1/bookings/${booking.id}/messages`, { channel: 'sms', body: 'Hello' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ state: 'failed', failure_code: 'recipient_missing', recipient: null });

    const live = restClient(t.baseUrl, t.business.live_secret_key);
    const liveVehicle = await createVehicle(live);
    const liveBooking = await createBooking(live, liveVehicle.id);
    const email = await live.post(`/v1/bookings/${liveBooking.id}/messages`, { channel: 'email', body: 'Hello' });
    expect(email.status).toBe(201);
    expect(email.body).toMatchObject({ livemode: true, state: 'failed', failure_code: 'channel_not_configured' });
    const failed = await live.get(`/v1/events?booking_id=${liveBooking.id}&type=message.failed`);
    expect(failed.body.data).toHaveLength(1);
  });
});

describe('an email while the mail server is down', () => {
  let t: TestApp;
  let smtp: LoopbackSmtp | null = null;
  let skewMs = 0;

  beforeAll(async () => {
    const port = await freePort();
    t = await startTestApp('pglite', { holdSweepMs: 100, messaging: { smtpUrl: undefined, sandboxSmtpUrl: `smtp://127.0.0.1:${port}`, from: 'bookings@rentals.test' } }, { now: () => new Date(Date.now() + skewMs) });
    (t as TestApp & { port?: number }).port = port;
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('stays queued with the failure, then goes out once the server is back and its retry falls due', async () => {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    const vehicle = await createVehicle(api);
    const booking = await createBooking(api, vehicle.id, { customer: { name: 'Queued', email: 'queued@example.com' } });
    const res = await api.post(`/v1/bookings/${booking.id}/messages`, { channel: 'email', body: 'Your car is ready.' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ state: 'queued', failure_code: 'channel_unavailable', delivery_attempts: 1, sent_at: null });

    smtp = await startLoopbackSmtp((t as TestApp & { port: number }).port);
    // Before its retry time nothing is sent again; once it is due, the sweep delivers it once.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(smtp.received).toHaveLength(0);
    skewMs = 11_000;
    const mail = await smtp.waitFor((m) => m.text?.includes('Your car is ready.') === true, 5_000);
    expect(mail.messageId).toContain(res.body.id);
    const conversation = await api.get(`/v1/conversations/${res.body.conversation_id}`);
    expect(conversation.body.messages[0]).toMatchObject({ id: res.body.id, state: 'sent', failure_code: null, delivery_attempts: 2 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(smtp.received).toHaveLength(1);
  });
});
