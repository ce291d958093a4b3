import { createRentalClient, type components } from '../../client/index.ts';

/*
 * The elements' one way to the API: the typed client (client/, openapi-fetch over the
 * generated schema), so a change to the API's shapes breaks this folder's type check. Every
 * failure becomes an EmbedError with a code (the API's, or one of the elements' own) and a
 * message in words.
 */

export type PublicVehicle = components['schemas']['PublicVehicle'];
export type Quote = components['schemas']['Quote'];
export type Booking = components['schemas']['Booking'];
export type Checkout = components['schemas']['Checkout'];

export class EmbedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The field the error is about (the API's `param`), to show the error next to it. */
    readonly param?: string,
  ) {
    super(message);
  }
}

/** A secret key must never leave the business's servers: such a key is refused before any request. */
export const isSecretKey = (key: string) => /^svc_(live|test)_sk_/.test(key.trim());
export const isPublishableKey = (key: string) => /^svc_(live|test)_pk_[0-9A-Za-z]{32,}$/.test(key.trim());
export const isTestKey = (key: string) => key.startsWith('svc_test_');

/** The origin the script was loaded from: the API's, unless `api-base` says otherwise. */
export const scriptOrigin = new URL(import.meta.url).origin;

type Failure = { error?: { code?: string; message?: string; param?: string } } | undefined;

export function apiOf(base: string, key: string, messages: { unreachable: string; refusedOrigin: (origin: string) => string }) {
  const client = createRentalClient(base.replace(/\/$/, ''), key.trim(), { fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, credentials: 'omit' }) });

  /** fetch threw: the service is down, or (it answered the script) it refused this page's origin (no CORS header). */
  async function unreachable(): Promise<EmbedError> {
    const reachable = await fetch(`${base}/health/live`, { mode: 'no-cors', credentials: 'omit' }).then(() => true, () => false);
    return reachable
      ? new EmbedError('origin_not_allowed', messages.refusedOrigin(location.origin))
      : new EmbedError('api_unreachable', messages.unreachable);
  }

  let themeRead: Promise<Theme | null> | null = null;

  async function call<T>(run: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    let result: { data?: T; error?: unknown; response: Response };
    try {
      result = await run();
    } catch {
      throw await unreachable();
    }
    if (result.data !== undefined && result.response.ok) return result.data;
    const e = (result.error as Failure)?.error;
    throw new EmbedError(e?.code ?? `http_${result.response.status}`, e?.message ?? `HTTP ${result.response.status}`, e?.param);
  }

  return {
    publicVehicles: () => call(() => client.GET('/v1/public/vehicles', { params: { query: { limit: 100 } } })).then((page) => page.data),
    publicVehicle: (id: string) => call(() => client.GET('/v1/public/vehicles/{vehicle_id}', { params: { path: { vehicle_id: id } } })),
    quote: (vehicleId: string, startAt: string, endAt: string) =>
      call(() => client.POST('/v1/quotes', { body: { vehicle_id: vehicleId, start_at: startAt, end_at: endAt, unlimited_miles: false } })),
    availability: (vehicleId: string, startAt: string, endAt: string) =>
      call(() => client.GET('/v1/vehicles/{vehicle_id}/availability', { params: { path: { vehicle_id: vehicleId }, query: { start_at: startAt, end_at: endAt } } })),
    book: (body: { vehicle_id: string; start_at: string; end_at: string; quote_id: string; customer: { name: string; email: string; phone?: string } }) =>
      call(() => client.POST('/v1/bookings', { body: { ...body, unlimited_miles: false } })),
    booking: (id: string, clientSecret: string) =>
      call(() => client.GET('/v1/bookings/{booking_id}', { params: { path: { booking_id: id } }, headers: { 'x-client-secret': clientSecret } })),
    checkout: (id: string, clientSecret: string) =>
      call(() => client.POST('/v1/bookings/{booking_id}/checkout', { params: { path: { booking_id: id } }, headers: { 'x-client-secret': clientSecret } })),
    /** The business's branding and, live, the processor's payment form: read once (a failed read is tried again on the next call). */
    theme(): Promise<Theme | null> {
      themeRead ??= fetch(`${base}/embed/v1/theme`, { headers: { authorization: `Bearer ${key.trim()}` }, credentials: 'omit' })
        .then((res) => (res.ok ? (res.json() as Promise<Theme>) : null))
        .catch(() => null) // the flow's own requests say why
        .then((read) => {
          if (!read) themeRead = null;
          return read;
        });
      return themeRead;
    },
    /** The sandbox's test card: Pay or Decline on the checkout's hosted payment page (its `url`). */
    async testPayment(url: string, outcome: 'pay' | 'decline'): Promise<{ outcome: 'paid' | 'declined'; state: string }> {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: `outcome=${outcome}`,
          credentials: 'omit',
        });
      } catch {
        throw await unreachable();
      }
      const body = await res.json().catch(() => null);
      if (!res.ok) throw new EmbedError(body?.error?.code ?? `http_${res.status}`, body?.error?.message ?? `HTTP ${res.status}`);
      return body;
    },
  };
}

export type Api = ReturnType<typeof apiOf>;

export interface Theme {
  livemode: boolean;
  business_name: string;
  primary_color: string | null;
  secondary_color: string | null;
  accent_color: string | null;
  font: string | null;
  /** Live: the processor's payment form (Stripe.js from script_url, with the platform's publishable key); null in the sandbox or when not configured. */
  payment: { processor: 'stripe'; publishable_key: string; script_url: string } | null;
}
