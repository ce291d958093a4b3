import type { OwnerLookup } from '../../../db/owner-lookup.ts';
import type { TenantDbFactory } from '../../../db/tenant-db.ts';
import type { BrowserBookingSecrets } from '../../../domain/bookings/browser-booking.ts';
import { payThroughCheckoutPage, readCheckoutPage, SANDBOX_DECLINED_CARD, type CheckoutPage, type CheckoutPageDeps } from '../../../domain/payments/checkout-page.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { jsonAnswer, type EdgeAnswer, type EdgeStep } from '../runner.ts';
import { wantsHtml } from './signing-page.ts';

const LINK = /^\/checkout\/(bk_[0-9a-z]{1,60})$/;

/** The link is a credential: never cached, never told to another site. */
const HEADERS = { 'cache-control': 'private, no-store', 'referrer-policy': 'no-referrer' };

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const money = (cents: number, currency: string) => new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);

function html(status: number, title: string, body: string): EdgeAnswer {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}dt{font-weight:600}dd{margin:0 0 .6rem}label{display:block;margin:.8rem 0}input{width:100%;padding:.4rem;box-sizing:border-box}button{padding:.5rem 1.2rem;margin-right:.5rem}.note{color:#555}</style>
</head><body>${body}</body></html>`;
  return {
    status,
    headers: {
      ...HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'content-length': String(Buffer.byteLength(page)),
    },
    body: page,
  };
}

function pageHtml(page: CheckoutPage, action: string): EdgeAnswer {
  const facts = [
    ['Business', page.business_name],
    ['Vehicle', page.vehicle_name],
    ['Pick-up', page.start_at],
    ['Return', page.end_at],
    ['Total', money(page.amount_cents, page.currency)],
  ];
  const summary = `<dl>${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
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
  } else if (page.payable) {
    form = `<p>Pay with the processor's payment form, opened by the site you booked on.</p>`;
  } else if (!page.outcome) {
    form = `<p>This checkout is not waiting for payment: booking ${escapeHtml(page.booking_id)} is ${escapeHtml(page.state)}.</p>`;
  }
  return html(200, `Pay ${page.business_name}`, `<main><h1>${page.livemode ? 'Payment' : 'Payment (sandbox)'}</h1>${result}${summary}${form}</main>`);
}

/**
 * The hosted payment page of a booking's checkout: GET /checkout/{booking_id}?payment&expires&signature
 * (the checkout's `url`) shows it (JSON to a script); POST (`outcome` pay|decline, or the
 * test card's `card_number`, as a form or JSON) pays or declines in the sandbox. No API key:
 * the link's signature is the authorization.
 */
export function checkoutPageStep(deps: { owners: OwnerLookup; tenantDb: TenantDbFactory; secrets: BrowserBookingSecrets; bodyLimitBytes: number; now: () => Date }): EdgeStep {
  const domain: CheckoutPageDeps = { owners: deps.owners, tenantDb: deps.tenantDb, secrets: deps.secrets, now: deps.now };
  return {
    name: 'checkout-page',
    run(ctx) {
      const { request } = ctx;
      if (!request.pathname.startsWith('/checkout/')) return;
      const match = LINK.exec(request.pathname);
      if (!match) throw EdgeErrors.routeNotFound(request.method, request.pathname);
      const bookingId = match[1];
      ctx.template = '/checkout/{booking_id}';
      const browser = wantsHtml(request);
      const action = request.pathname + request.search;
      const answer = async (run: () => Promise<CheckoutPage>, asHtml: boolean): Promise<EdgeAnswer> => {
        if (!asHtml) return jsonAnswer(200, await run(), HEADERS);
        try {
          return pageHtml(await run(), action);
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
        const pick = (k: string) => (typeof fields[k] === 'string' ? (fields[k] as string) : undefined);
        return payThroughCheckoutPage(domain, bookingId, request.searchParams, { outcome: pick('outcome'), card_number: pick('card_number') }, ctx.requestId);
      }, form && !accept.startsWith('application/json')).then((a) => void (ctx.answer = a));
    },
  };
}
