import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TenantScope } from '../../db/tenant-db.ts';

/*
 * The browser booking of the embedded components (the contract's "Embedded booking
 * components"): a booking created with a publishable key carries a `client_secret` in its
 * create answer; with it, the browser reads that one booking and starts its checkout. The
 * secret is an HMAC of the business, the environment and the booking under this
 * installation's own key: nothing is stored, a retry of the create answers the same secret,
 * and the edge checks it without a database read. The sandbox's hosted payment page is
 * reached by a link signed the same way (`checkoutQuery`).
 */

/** The query parameter and the header a browser sends the client secret in. */
export const CLIENT_SECRET_PARAM = 'client_secret';
export const CLIENT_SECRET_HEADER = 'x-client-secret';

const CLIENT_SECRET = /^(bk_[0-9a-z]{1,60})_secret_([A-Za-z0-9_-]{43})$/;

/** The path of a booking's hosted payment page, before its query. */
export const checkoutPagePath = (bookingId: string) => `/checkout/${bookingId}`;

export type CheckoutLinkVerdict = 'ok' | 'expired' | 'invalid';

export function browserBookingSecrets(key: string) {
  const mac = (label: string, parts: (string | number)[]) => createHmac('sha256', key).update([label, ...parts].join('\n')).digest('base64url');
  const equal = (a: string, b: string) => {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  };
  const env = (t: TenantScope) => (t.livemode ? 'live' : 'test');
  return {
    /** The booking's client secret: `bk_..._secret_...`. */
    clientSecret(tenant: TenantScope, bookingId: string): string {
      return `${bookingId}_secret_${mac('booking-client-secret', [tenant.businessId, env(tenant), bookingId])}`;
    },
    /** The booking a client secret names, when it is this business's and environment's; else null. */
    bookingOf(tenant: TenantScope, secret: string): string | null {
      const match = CLIENT_SECRET.exec(secret);
      if (!match) return null;
      return equal(match[2], mac('booking-client-secret', [tenant.businessId, env(tenant), match[1]])) ? match[1] : null;
    },
    /**
     * The scope of a publishable key's Idempotency-Keys: one per client address (what the edge
     * takes as the client's), derived under the installation's key so that no address is kept
     * in the clear. A stored answer is replayed only within its scope.
     */
    idempotencyScope(tenant: TenantScope, address: string | null): string {
      return `browser_${mac('idempotency-scope', [tenant.businessId, env(tenant), address ?? 'unknown'])}`;
    },
    /** `?expires=<unix seconds>&signature=...` of the hosted payment page of a booking's checkout. */
    checkoutQuery(tenant: TenantScope, bookingId: string, paymentId: string, expiresAt: Date): string {
      const expires = Math.floor(expiresAt.getTime() / 1000);
      return `payment=${paymentId}&expires=${expires}&signature=${mac('checkout-page', [tenant.businessId, env(tenant), bookingId, paymentId, expires])}`;
    },
    /** Whether a hosted payment page's link was made for this booking's payment, and is still valid at `now`. */
    verifyCheckout(tenant: TenantScope, bookingId: string, params: URLSearchParams, now: Date): CheckoutLinkVerdict {
      const expires = params.get('expires') ?? '';
      const paymentId = params.get('payment') ?? '';
      if (!/^[0-9]{1,12}$/.test(expires) || !/^pay_[0-9a-z]{1,60}$/.test(paymentId)) return 'invalid';
      if (!equal(params.get('signature') ?? '', mac('checkout-page', [tenant.businessId, env(tenant), bookingId, paymentId, Number(expires)]))) return 'invalid';
      return Number(expires) * 1000 < now.getTime() ? 'expired' : 'ok';
    },
  };
}

export type BrowserBookingSecrets = ReturnType<typeof browserBookingSecrets>;

/** What operations need: the client secret of a booking of the caller, and the link to a checkout's hosted payment page. */
export interface BrowserBookingLinks {
  clientSecret(bookingId: string): string;
  checkoutUrl(bookingId: string, paymentId: string, expiresAt: Date): string;
}

export function browserBookingLinks(secrets: BrowserBookingSecrets, tenant: TenantScope, baseUrl: () => string): BrowserBookingLinks {
  return {
    clientSecret: (bookingId) => secrets.clientSecret(tenant, bookingId),
    checkoutUrl: (bookingId, paymentId, expiresAt) => `${baseUrl()}${checkoutPagePath(bookingId)}?${secrets.checkoutQuery(tenant, bookingId, paymentId, expiresAt)}`,
  };
}
