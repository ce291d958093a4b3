import type { OwnerLookup } from '../../../db/owner-lookup.ts';
import type { TenantDbFactory } from '../../../db/tenant-db.ts';
import type { BrowserBookingSecrets } from '../../../domain/bookings/browser-booking.ts';
import { payThroughCheckoutPage, readCheckoutPage, SANDBOX_DECLINED_CARD, type CheckoutPage, type CheckoutPageDeps } from '../../../domain/payments/checkout-page.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { processorSources, STRIPE_JS_URL } from '../../../processors/stripe-js.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { jsonAnswer, type EdgeAnswer, type EdgeStep } from '../runner.ts';
import { wantsHtml } from './signing-page.ts';

const LINK = /^\/checkout\/(bk_[0-9a-z]{1,60})$/;
export const STRIPE_PAGE_SCRIPT = '/checkout/stripe-page.js';

/**
 * The live page's script (no inline script: the page's CSP allows none): Stripe.js's Payment
 * Element with the client secret from the link's fragment (never sent to a server), then
 * confirmPayment, which comes back to the page; the outcome reaches the booking through
 * Stripe's events (payment.succeeded / payment.failed).
 */
const STRIPE_PAGE_JS = `(() => {
  const key = document.currentScript.dataset.key;
  const secret = new URLSearchParams(location.hash.slice(1)).get('client_secret');
  const message = document.getElementById('message');
  const done = new URLSearchParams(location.search).get('redirect_status');
  if (done) { message.textContent = done === 'succeeded' ? 'Payment received. Your booking is confirmed as soon as the processor reports it; you can close this page.' : 'The payment did not go through. You can try again.'; }
  if (!secret || !window.Stripe) { if (!done) message.textContent = 'This payment link is incomplete: open it again from the booking page.'; return; }
  const stripe = window.Stripe(key);
  const elements = stripe.elements({ clientSecret: secret });
  elements.create('payment').mount('#payment-element');
  const button = document.getElementById('pay');
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    const { error } = await stripe.confirmPayment({ elements, confirmParams: { return_url: location.href.split('#')[0] } });
    if (error) { message.textContent = error.message; button.disabled = false; }
  });
})();
`;

/** The link is a credential: never cached, never told to another site. */
const HEADERS = { 'cache-control': 'private, no-store', 'referrer-policy': 'no-referrer' };

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const money = (cents: number, currency: string) => new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);

function html(status: number, title: string, body: string, csp = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"): EdgeAnswer {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}dt{font-weight:600}dd{margin:0 0 .6rem}label{display:block;margin:.8rem 0}input{width:100%;padding:.4rem;box-sizing:border-box}button{padding:.5rem 1.2rem;margin-right:.5rem}.note{color:#555}</style>
</head><body>${body}</body></html>`;
  return {
    status,
    headers: {
      ...HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'content-length': String(Buffer.byteLength(page)),
    },
    body: page,
  };
}

/** Stripe.js and its frames (processorSources: js.stripe.com, or STRIPE_JS_URL's origin), the one other host the live page loads from. */
function stripeCsp(jsUrl: string): string {
  const s = processorSources(jsUrl);
  return `default-src 'none'; script-src 'self' ${s.script.join(' ')}; frame-src ${s.frame.join(' ')}; connect-src ${s.connect.join(' ')}; img-src ${s.img.join(' ')}; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'`;
}

function summary(page: CheckoutPage): string {
  const facts = [
    ['Business', page.business_name],
    ['Vehicle', page.vehicle_name],
    ['Pick-up', page.start_at],
    ['Return', page.end_at],
    ['Total', money(page.amount_cents, page.currency)],
  ];
  return `<dl>${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

function pageHtml(page: CheckoutPage, action: string, stripeKey: string | undefined, stripeJsUrl: string): EdgeAnswer {
  const result = page.outcome
    ? `<p role="status"><strong>${page.outcome === 'paid' ? 'Payment succeeded.' : 'The card was declined.'}</strong> Booking ${escapeHtml(page.booking_id)} is ${escapeHtml(page.state)}.</p>`
    : '';
  let form = '';
  if (page.payable && !page.livemode) {
    form = `<form method="post" action="${escapeHtml(action)}">
<p class="note">Sandbox: no card is charged. Any card number pays, except ${SANDBOX_DECLINED_CARD}, which is declined.</p>
<label>Card number <input name="card_number" inputmode="numeric" autocomplete="off" value="4242 4242 4242 4242"></label>
<label>Expiry (MM/YY) <input name="expiry" autocomplete="off" value="12/34"></label>
<label>CVC <input name="cvc" inputmode="numeric" autocomplete="off" value="123"></label>
<button type="submit" name="outcome" value="pay">Pay</button><button type="submit" name="outcome" value="decline">Decline</button></form>`;
  } else if (page.payable && stripeKey) {
    const live = `<div id="payment-element"></div><p><button type="button" id="pay" hidden>Pay</button></p><p id="message" role="alert"></p>
<script src="${escapeHtml(stripeJsUrl)}"></script><script src="${STRIPE_PAGE_SCRIPT}" data-key="${escapeHtml(stripeKey)}"></script>`;
    return html(200, `Pay ${page.business_name}`, `<main><h1>Payment</h1>${summary(page)}${live}</main>`, stripeCsp(stripeJsUrl));
  } else if (page.payable) {
    form = `<p role="alert">Card payments are not configured on this service yet (STRIPE_PUBLISHABLE_KEY); contact ${escapeHtml(page.business_name)}.</p>`;
  } else if (!page.outcome) {
    form = `<p>This checkout is not waiting for payment: booking ${escapeHtml(page.booking_id)} is ${escapeHtml(page.state)}.</p>`;
  }
  return html(200, `Pay ${page.business_name}`, `<main><h1>${page.livemode ? 'Payment' : 'Payment (sandbox)'}</h1>${result}${summary(page)}${form}</main>`);
}

/**
 * The hosted payment page of a booking's checkout: GET /checkout/{booking_id}?payment&expires&signature
 * (the checkout's `url`) shows it (JSON to a script); POST (`outcome` pay|decline, or the
 * test card's `card_number`, as a form or JSON) pays or declines in the sandbox. No API key:
 * the link's signature is the authorization.
 */
export function checkoutPageStep(deps: {
  owners: OwnerLookup;
  tenantDb: TenantDbFactory;
  secrets: BrowserBookingSecrets;
  bodyLimitBytes: number;
  now: () => Date;
  /** Stripe's publishable key (STRIPE_PUBLISHABLE_KEY), for the live page's payment form. */
  stripePublishableKey?: string;
  /** Where Stripe.js comes from (STRIPE_JS_URL). */
  stripeJsUrl?: string;
}): EdgeStep {
  const stripeJsUrl = deps.stripeJsUrl ?? STRIPE_JS_URL;
  const domain: CheckoutPageDeps = { owners: deps.owners, tenantDb: deps.tenantDb, secrets: deps.secrets, now: deps.now };
  return {
    name: 'checkout-page',
    run(ctx) {
      const { request } = ctx;
      if (!request.pathname.startsWith('/checkout/')) return;
      if (request.pathname === STRIPE_PAGE_SCRIPT && (request.method === 'GET' || request.method === 'HEAD')) {
        ctx.template = STRIPE_PAGE_SCRIPT;
        ctx.answer = {
          status: 200,
          headers: { 'content-type': 'text/javascript; charset=utf-8', 'content-length': String(Buffer.byteLength(STRIPE_PAGE_JS)), 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' },
          body: request.method === 'HEAD' ? null : STRIPE_PAGE_JS,
        };
        return;
      }
      const match = LINK.exec(request.pathname);
      if (!match) throw EdgeErrors.routeNotFound(request.method, request.pathname);
      const bookingId = match[1];
      ctx.template = '/checkout/{booking_id}';
      const browser = wantsHtml(request);
      const action = request.pathname + request.search;
      const answer = async (run: () => Promise<CheckoutPage>, asHtml: boolean): Promise<EdgeAnswer> => {
        if (!asHtml) return jsonAnswer(200, await run(), HEADERS);
        try {
          return pageHtml(await run(), action, deps.stripePublishableKey, stripeJsUrl);
        } catch (err) {
          if (err instanceof DomainError) return html(err.status, 'Payment', `<main><h1>Payment</h1><p role="alert">${escapeHtml(err.message)}</p></main>`);
          throw err;
        }
      };
      if (request.method === 'GET' || request.method === 'HEAD') {
        return answer(() => readCheckoutPage(domain, bookingId, request.searchParams), browser).then((a) => void (ctx.answer = a));
      }
      if (request.method !== 'POST') {
        ctx.headers.Allow = 'GET, POST';
        throw EdgeErrors.methodNotAllowed('A payment page takes GET and POST only.');
      }
      // Answered as it was asked: the page's own form gets the page back, a script JSON.
      const form = (request.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded');
      const accept = request.header('accept') ?? '';
      return answer(async () => {
        const text = (await request.bytes(deps.bodyLimitBytes)).toString('utf8');
        let fields: Record<string, unknown> = {};
        if (form) fields = Object.fromEntries(new URLSearchParams(text));
        else if (text.trim()) {
          try {
            const parsed: unknown = JSON.parse(text);
            if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) fields = parsed as Record<string, unknown>;
            else throw EdgeErrors.invalidJson();
          } catch (err) {
            throw err instanceof DomainError ? err : EdgeErrors.invalidJson();
          }
        }
        return payThroughCheckoutPage(domain, bookingId, request.searchParams, { outcome: fields.outcome, card_number: fields.card_number }, ctx.requestId);
      }, form && !accept.startsWith('application/json')).then((a) => void (ctx.answer = a));
    },
  };
}
