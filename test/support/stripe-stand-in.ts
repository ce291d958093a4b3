import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Stripe from 'stripe';
import { PAYMENT_FRAME_HTML, PAYMENT_FRAME_JS, STRIPE_JS } from './stripe-js-stand-in.ts';

/*
 * A stand-in for Stripe's API on loopback: the endpoints the Stripe adapter calls, answering
 * in the shapes Stripe documents (form-encoded requests, JSON objects, `{error: {type, code,
 * decline_code, message}}` refusals with their HTTP statuses, replayed answers for a repeated
 * Idempotency-Key). The customer's side (paying a checkout in the browser) and Stripe's
 * events are driven by the test through `customerPays` and `event`; or, in a real browser,
 * by the stand-in's own Stripe.js (`jsUrl`, test/support/stripe-js-stand-in.ts), whose Payment
 * Element confirms the PaymentIntent with the publishable key and its client secret, after
 * which the stand-in sends Stripe's event to `deliverEventsTo`'s URL, signed, as Stripe would.
 */

/** Cards as Stripe's test payment methods behave: one that always pays, one always declined, one that pays once with the customer present and is declined off-session after. */
export type TestCard = 'pm_card_visa' | 'pm_card_chargeDeclined' | 'pm_card_declinedOffSession';

interface Intent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_received: number;
  currency: string;
  customer: string | null;
  payment_method: string | null;
  capture_method: 'automatic' | 'manual';
  setup_future_usage: string | null;
  status: 'requires_payment_method' | 'requires_capture' | 'succeeded' | 'canceled';
  client_secret: string;
  metadata: Record<string, string>;
  last_payment_error: { type: string; code: string; decline_code: string; message: string; payment_method: { id: string; object: 'payment_method' } } | null;
  livemode: boolean;
  created: number;
}

/** A Stripe Identity VerificationSession, in the fields Stripe documents. */
interface VerificationSession {
  id: string;
  object: 'identity.verification_session';
  client_secret: string | null;
  created: number;
  last_error: { code: string; reason: string } | null;
  last_verification_report: string | null;
  livemode: boolean;
  metadata: Record<string, string>;
  options: Record<string, unknown>;
  provided_details: Record<string, string> | null;
  redaction: null;
  status: 'requires_input' | 'processing' | 'verified' | 'canceled';
  type: 'document' | 'id_number';
  url: string | null;
}

export interface StandInRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  params: Record<string, unknown>;
  raw: string;
}

const DECLINE = { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' };

/** `a[b][c]=1` form fields as nested objects (Stripe's encoding). */
function parseForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node = out;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}

/** What the stand-in's Stripe.js and its Payment Element's frame are served as. */
const BROWSER_FILES: Record<string, { type: string; body: string }> = {
  '/v3/': { type: 'text/javascript; charset=utf-8', body: STRIPE_JS },
  '/v3/elements-inner-payment.html': { type: 'text/html; charset=utf-8', body: PAYMENT_FRAME_HTML },
  '/v3/elements-inner-payment.js': { type: 'text/javascript; charset=utf-8', body: PAYMENT_FRAME_JS },
};

/** As api.stripe.com, answers to browsers are readable from any origin (the key and the client secret are the credentials). */
const CORS = { 'access-control-allow-origin': '*' };

export async function startStripeStandIn(options: { secretKey: string; webhookSecret: string; publishableKey?: string }) {
  const intents = new Map<string, Intent>();
  const refunds = new Map<string, { id: string; object: 'refund'; amount: number; payment_intent: string; status: 'succeeded'; currency: string; metadata: Record<string, string>; failure_reason: null; created: number }>();
  const customers = new Map<string, { id: string; object: 'customer'; metadata: Record<string, string> }>();
  const verificationSessions = new Map<string, VerificationSession>();
  const answered = new Map<string, { status: number; body: unknown }>();
  const requests: StandInRequest[] = [];
  /**
   * Calls to leave unanswered (the adapter's timeout), by "METHOD /path" prefix (and `where`,
   * when given), each used once; `processed`: carried out first, as when only the answer is lost.
   */
  const hangs: { prefix: string; processed: boolean; where?: (request: StandInRequest) => boolean }[] = [];
  const sockets = new Set<Socket>();
  const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
  const refundedOf = (pi: string) => [...refunds.values()].filter((r) => r.payment_intent === pi).reduce((sum, r) => sum + r.amount, 0);

  function refusal(status: number, error: Record<string, unknown>) {
    return { status, body: { error: { ...error, request_log_url: null } } };
  }

  function unexpectedState(intent: Intent, action: string) {
    return refusal(400, {
      type: 'invalid_request_error',
      code: 'payment_intent_unexpected_state',
      message: `You cannot ${action} this PaymentIntent because it has a status of ${intent.status}.`,
      payment_intent: intent,
    });
  }

  function confirm(intent: Intent, card: string, offSession: boolean) {
    const declined = card === 'pm_card_chargeDeclined' || (offSession && card === 'pm_card_declinedOffSession');
    intent.payment_method = declined ? null : card;
    if (declined) {
      intent.status = 'requires_payment_method';
      intent.last_payment_error = { ...DECLINE, payment_method: { id: card, object: 'payment_method' } };
      return refusal(402, { ...DECLINE, payment_intent: intent });
    }
    intent.last_payment_error = null;
    if (intent.capture_method === 'manual') {
      intent.status = 'requires_capture';
      intent.amount_capturable = intent.amount;
    } else {
      intent.status = 'succeeded';
      intent.amount_received = intent.amount;
    }
    return { status: 200, body: intent };
  }

  function route(method: string, path: string, p: Record<string, any>): { status: number; body: unknown } {
    if (method === 'POST' && path === '/v1/customers') {
      const customer = { id: id('cus'), object: 'customer' as const, metadata: p.metadata ?? {} };
      customers.set(customer.id, customer);
      return { status: 200, body: customer };
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      const amount = Number(p.amount);
      if (!Number.isInteger(amount) || amount < 50) return refusal(400, { type: 'invalid_request_error', code: 'amount_too_small', param: 'amount', message: 'Amount must be at least 50 cents' });
      if (p.customer && !customers.has(p.customer)) return refusal(400, { type: 'invalid_request_error', code: 'resource_missing', param: 'customer', message: `No such customer: '${p.customer}'` });
      const pi = id('pi');
      const intent: Intent = {
        id: pi,
        object: 'payment_intent',
        amount,
        amount_capturable: 0,
        amount_received: 0,
        currency: String(p.currency),
        customer: p.customer ?? null,
        payment_method: null,
        capture_method: p.capture_method === 'manual' ? 'manual' : 'automatic',
        setup_future_usage: p.setup_future_usage ?? null,
        status: 'requires_payment_method',
        client_secret: `${pi}_secret_${randomBytes(12).toString('hex')}`,
        metadata: p.metadata ?? {},
        last_payment_error: null,
        livemode: false,
        created: Math.floor(Date.now() / 1000),
      };
      intents.set(pi, intent);
      if (p.confirm === 'true') {
        if (!p.payment_method) return refusal(400, { type: 'invalid_request_error', code: 'payment_intent_unexpected_state', message: 'A payment method is required to confirm.' });
        return confirm(intent, p.payment_method, p.off_session === 'true');
      }
      return { status: 200, body: intent };
    }
    const intentPath = /^\/v1\/payment_intents\/([^/]+)(\/capture|\/cancel|\/confirm)?$/.exec(path);
    if (intentPath) {
      const intent = intents.get(intentPath[1]);
      if (!intent) return refusal(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'intent', message: `No such payment_intent: '${intentPath[1]}'` });
      if (method === 'GET' && !intentPath[2]) return { status: 200, body: intent };
      if (method === 'POST' && intentPath[2] === '/confirm') {
        if (intent.status !== 'requires_payment_method') return unexpectedState(intent, 'confirm');
        if (!p.payment_method) return refusal(400, { type: 'invalid_request_error', code: 'parameter_missing', param: 'payment_method', message: 'Missing required param: payment_method.' });
        return confirm(intent, String(p.payment_method), false);
      }
      if (method === 'POST' && intentPath[2] === '/capture') {
        if (intent.status !== 'requires_capture') return unexpectedState(intent, 'capture');
        const amount = p.amount_to_capture === undefined ? intent.amount_capturable : Number(p.amount_to_capture);
        if (!(amount > 0 && amount <= intent.amount_capturable)) return refusal(400, { type: 'invalid_request_error', code: 'amount_too_large', param: 'amount_to_capture', message: 'The amount to capture exceeds the amount capturable.' });
        // Stripe lets the rest of the hold go.
        Object.assign(intent, { status: 'succeeded', amount_received: amount, amount_capturable: 0 });
        return { status: 200, body: intent };
      }
      if (method === 'POST' && intentPath[2] === '/cancel') {
        if (intent.status === 'succeeded' || intent.status === 'canceled') return unexpectedState(intent, 'cancel');
        Object.assign(intent, { status: 'canceled', amount_capturable: 0 });
        return { status: 200, body: intent };
      }
    }
    if (method === 'POST' && path === '/v1/identity/verification_sessions') {
      if (p.type !== 'document' && p.type !== 'id_number') return refusal(400, { type: 'invalid_request_error', code: 'parameter_missing', param: 'type', message: 'Missing required param: type.' });
      const vs = id('vs');
      const session: VerificationSession = {
        id: vs,
        object: 'identity.verification_session',
        client_secret: `${vs}_secret_test_${randomBytes(12).toString('hex')}`,
        created: Math.floor(Date.now() / 1000),
        last_error: null,
        last_verification_report: null,
        livemode: false,
        metadata: p.metadata ?? {},
        options: p.options ?? {},
        provided_details: p.provided_details ?? null,
        redaction: null,
        status: 'requires_input',
        type: p.type,
        url: `https://verify.stripe.com/start/test_${randomBytes(12).toString('hex')}`,
      };
      verificationSessions.set(vs, session);
      return { status: 200, body: session };
    }
    const sessionPath = /^\/v1\/identity\/verification_sessions\/([^/]+)$/.exec(path);
    if (sessionPath && method === 'GET') {
      const session = verificationSessions.get(sessionPath[1]);
      if (!session) return refusal(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'session', message: `No such verification session: '${sessionPath[1]}'` });
      // Retrieved sessions never show the client secret again, as at Stripe.
      return { status: 200, body: { ...session, client_secret: null, url: null } };
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intent = intents.get(String(p.payment_intent));
      if (!intent) return refusal(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_intent', message: `No such payment_intent: '${p.payment_intent}'` });
      if (intent.status !== 'succeeded') return refusal(400, { type: 'invalid_request_error', code: 'charge_not_refundable', message: 'This PaymentIntent has nothing to refund.' });
      const left = intent.amount_received - refundedOf(intent.id);
      const amount = p.amount === undefined ? left : Number(p.amount);
      if (left <= 0) return refusal(400, { type: 'invalid_request_error', code: 'charge_already_refunded', message: 'Charge has already been refunded.' });
      if (!(amount > 0 && amount <= left)) return refusal(400, { type: 'invalid_request_error', code: 'amount_too_large', param: 'amount', message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})` });
      const refund = { id: id('re'), object: 'refund' as const, amount, payment_intent: intent.id, status: 'succeeded' as const, currency: intent.currency, metadata: p.metadata ?? {}, failure_reason: null, created: Math.floor(Date.now() / 1000) };
      refunds.set(refund.id, refund);
      return { status: 200, body: refund };
    }
    if (method === 'GET' && path === '/v1/refunds') {
      return list(path, [...refunds.values()].filter((r) => !p.payment_intent || r.payment_intent === p.payment_intent), p);
    }
    if (method === 'GET' && path === '/v1/payment_intents') {
      const since = p.created?.gte === undefined ? -Infinity : Number(p.created.gte);
      return list(path, [...intents.values()].filter((i) => (!p.customer || i.customer === p.customer) && i.created >= since), p);
    }
    return refusal(404, { type: 'invalid_request_error', code: 'resource_missing', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  /** One page of a list, newest first, as Stripe pages them (`limit`, `starting_after`, `has_more`). */
  function list(path: string, items: { id: string; created: number }[], p: Record<string, any>) {
    const newestFirst = items.reverse();
    const after = p.starting_after ? newestFirst.findIndex((i) => i.id === p.starting_after) + 1 : 0;
    const limit = p.limit === undefined ? 10 : Number(p.limit);
    const page = newestFirst.slice(after, after + limit);
    return { status: 200, body: { object: 'list', data: page, has_more: after + limit < newestFirst.length, url: path } };
  }

  /** Where Stripe's events go once a customer paid in the browser (deliverEventsTo), one after another. */
  let eventsUrl: string | null = null;
  let deliveries = Promise.resolve();
  const delivered: { type: string; status: number }[] = [];
  /** While held (holdEvents), events wait here: Stripe's events may arrive well after the customer paid. */
  let held: { until: Promise<void>; release(): void } | null = null;
  function sendEvent(evt: ReturnType<typeof event>) {
    if (!eventsUrl) return;
    const target = eventsUrl;
    const gate = held?.until;
    deliveries = deliveries.then(async () => {
      await gate;
      const payload = JSON.stringify(evt);
      const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': sign(payload) }, body: payload }).catch(() => null);
      delivered.push({ type: evt.type, status: res?.status ?? 0 });
    });
  }

  /**
   * A call of Stripe.js from the customer's browser: the publishable key and the PaymentIntent's
   * client secret are the credentials (a read, or the confirmation with the card the frame took).
   */
  function browserCall(method: string, path: string, p: Record<string, any>): { status: number; body: unknown } {
    const intentPath = /^\/v1\/payment_intents\/([^/]+)(\/confirm)?$/.exec(path);
    const intent = intentPath ? intents.get(intentPath[1]) : undefined;
    if (!intentPath || !intent || p.client_secret !== intent.client_secret) {
      return refusal(400, { type: 'invalid_request_error', code: 'resource_missing', message: 'The client_secret provided does not match any associated PaymentIntent on this account.' });
    }
    const shown = () => ({ id: intent.id, object: intent.object, amount: intent.amount, currency: intent.currency, status: intent.status, client_secret: intent.client_secret, last_payment_error: intent.last_payment_error, livemode: intent.livemode });
    if (method === 'GET' && !intentPath[2]) return { status: 200, body: shown() };
    if (method !== 'POST' || !intentPath[2]) return refusal(404, { type: 'invalid_request_error', code: 'resource_missing', message: `Unrecognized request URL (${method}: ${path}).` });
    if (intent.status !== 'requires_payment_method') return unexpectedState(intent, 'confirm');
    const answer = confirm(intent, String(p.payment_method ?? ''), false);
    sendEvent(event(answer.status === 200 ? 'payment_intent.succeeded' : 'payment_intent.payment_failed', intent));
    return answer.status === 200 ? { status: 200, body: shown() } : answer;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    const idempotencyKey = (req.headers['idempotency-key'] as string | undefined) ?? null;
    const params = parseForm(method === 'GET' ? url.search.slice(1) : raw);
    const request = { method, path: url.pathname, idempotencyKey, params, raw };
    requests.push(request);
    const file = method === 'GET' ? BROWSER_FILES[url.pathname === '/v3' ? '/v3/' : url.pathname] : undefined;
    if (file) {
      res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' });
      return res.end(file.body);
    }
    if (method === 'OPTIONS') {
      res.writeHead(204, { ...CORS, 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'content-type' });
      return res.end();
    }
    if (options.publishableKey && params.key === options.publishableKey) {
      const answer = browserCall(method, url.pathname, params);
      res.writeHead(answer.status, { ...CORS, 'content-type': 'application/json', 'request-id': id('req') });
      return res.end(JSON.stringify(answer.body));
    }
    const call = `${method} ${url.pathname}`;
    const hang = hangs.findIndex((h) => call.startsWith(h.prefix) && (!h.where || h.where(request)));
    const hung = hang >= 0 ? hangs.splice(hang, 1)[0] : null;
    if (hung && !hung.processed) return; // never answered: the adapter's timeout decides
    let answer: { status: number; body: unknown };
    if (req.headers.authorization !== `Bearer ${options.secretKey}`) {
      answer = refusal(401, { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_****' });
    } else if (method === 'POST' && idempotencyKey && answered.has(idempotencyKey)) {
      answer = answered.get(idempotencyKey)!;
      res.setHeader('idempotent-replayed', 'true');
    } else {
      answer = route(method, url.pathname, params);
      if (method === 'POST' && idempotencyKey) answered.set(idempotencyKey, JSON.parse(JSON.stringify(answer)));
    }
    if (hung) return; // carried out, but the answer never arrives
    res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify(answer.body));
  }

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  /** The Stripe-Signature header Stripe would send with `payload`. */
  function sign(payload: string, secret = options.webhookSecret, timestamp?: number) {
    return Stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
  }

  /** A Stripe event about a PaymentIntent (or another object), as Stripe sends it. */
  function event(type: string, intent: Intent | VerificationSession) {
    return {
      id: id('evt'),
      object: 'event',
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      data: { object: JSON.parse(JSON.stringify(intent)) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
  }

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    intents,
    refunds,
    /** Leave the next call starting with "METHOD /path" (and matching `where`) unanswered; `processed`: carry it out, lose only the answer. */
    hangNext(prefix: string, processed = false, where?: (request: StandInRequest) => boolean) {
      hangs.push({ prefix, processed, where });
    },
    /** How many held calls have not arrived yet. */
    hangsLeft: () => hangs.length,
    /** The customer pays a checkout's PaymentIntent in their browser; the event Stripe then sends. */
    customerPays(paymentIntentId: string, card: TestCard) {
      const intent = intents.get(paymentIntentId);
      if (!intent) throw new Error(`no payment intent ${paymentIntentId}`);
      const { status } = confirm(intent, card, false);
      return event(status === 200 ? 'payment_intent.succeeded' : 'payment_intent.payment_failed', intent);
    },
    event,
    verificationSessions,
    /**
     * Stripe Identity's verdict on a session the customer completed: verified, or requires_input
     * with the check's error (document_unverified_other, selfie_face_mismatch, ...); the event Stripe then sends.
     */
    identityVerdict(sessionId: string, verdict: 'verified' | { code: string; reason: string }) {
      const session = verificationSessions.get(sessionId);
      if (!session) throw new Error(`no verification session ${sessionId}`);
      if (verdict === 'verified') Object.assign(session, { status: 'verified', last_error: null, last_verification_report: id('vr') });
      else Object.assign(session, { status: 'requires_input', last_error: verdict });
      return event(verdict === 'verified' ? 'identity.verification_session.verified' : 'identity.verification_session.requires_input', { ...session, client_secret: null, url: null });
    },
    /** The Stripe-Signature header Stripe would send with `payload`. */
    sign,
    /** Stripe.js of the stand-in (what STRIPE_JS_URL names), served as js.stripe.com serves the real one. */
    jsUrl: `http://127.0.0.1:${port}/v3/`,
    /** Send the events of payments made in a browser to `url` (the service's POST /v1/processor/stripe/webhook), signed. */
    deliverEventsTo(url: string) {
      eventsUrl = url;
    },
    /** The events sent so far, with the status the service answered; `eventsSent()` waits for those on their way. */
    delivered,
    eventsSent: () => deliveries,
    /** Keep the next events back until `releaseEvents()`. */
    holdEvents() {
      let release = () => {};
      const until = new Promise<void>((resolve) => (release = resolve));
      held = { until, release };
    },
    releaseEvents() {
      held?.release();
      held = null;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type StripeStandIn = Awaited<ReturnType<typeof startStripeStandIn>>;
