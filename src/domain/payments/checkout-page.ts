import type { OwnerLookup } from '../../db/owner-lookup.ts';
import type { TenantDbFactory } from '../../db/tenant-db.ts';
import type { BrowserBookingSecrets } from '../bookings/browser-booking.ts';
import type { EventOrigin } from '../events/event.service.ts';
import { recordPaymentFailure, recordPaymentSuccess } from './payment-outcomes.ts';
import { PaymentErrors } from './payment.errors.ts';
import { validationError } from '../shared/common.errors.ts';

/*
 * The hosted payment page of a booking's checkout (`url` of POST /v1/bookings/{id}/checkout):
 * no API key, the link's signature is the authorization, as with the signing links. In the
 * sandbox, a test card form whose Pay and Decline drive the sandbox processor: the same domain
 * steps the processor's events run (payment succeeded, card declined). The embedded
 * components' sandbox payment step posts to the same link.
 */

export interface CheckoutPageDeps {
  owners: OwnerLookup;
  tenantDb: TenantDbFactory;
  secrets: BrowserBookingSecrets;
  now: () => Date;
}

/** What the page shows (JSON to a script, HTML to a browser). */
export interface CheckoutPage {
  object: 'checkout_page';
  booking_id: string;
  livemode: boolean;
  business_name: string;
  vehicle_name: string;
  start_at: string;
  end_at: string;
  amount_cents: number;
  currency: string;
  /** The booking's state: checkout_started while the page waits for payment. */
  state: string;
  /** Whether the page still takes a payment. */
  payable: boolean;
  /** After a Pay or Decline: what happened. */
  outcome?: 'paid' | 'declined';
}

/** The test card numbers of the sandbox's form: this one is declined, any other valid-looking one pays. */
export const SANDBOX_DECLINED_CARD = '4000000000000002';

async function linked(deps: CheckoutPageDeps, bookingId: string, params: URLSearchParams) {
  const found = await deps.owners.resolveOwner('booking', bookingId);
  if (!found) throw PaymentErrors.checkoutLinkInvalid('invalid');
  const owner = { businessId: found.businessId, livemode: found.livemode };
  const now = new Date(deps.now().getTime() + found.clockOffsetSeconds * 1000);
  const verdict = deps.secrets.verifyCheckout(owner, bookingId, params, now);
  if (verdict !== 'ok') throw PaymentErrors.checkoutLinkInvalid(verdict);
  const db = deps.tenantDb(owner);
  const booking = await db.booking.findUniqueOrThrow({ where: { id: bookingId }, include: { vehicle: { select: { name: true } }, payment: true } });
  const payable = booking.state === 'checkout_started' && booking.payment?.state === 'checkout_started' && booking.payment.id === params.get('payment');
  return { owner, db, booking, payable };
}

function pageOf(l: Awaited<ReturnType<typeof linked>>, businessName: string, outcome?: 'paid' | 'declined'): CheckoutPage {
  const { booking } = l;
  return {
    object: 'checkout_page',
    booking_id: booking.id,
    livemode: booking.livemode,
    business_name: businessName,
    vehicle_name: booking.vehicle.name,
    start_at: booking.startAt.toISOString(),
    end_at: booking.endAt.toISOString(),
    amount_cents: booking.payment?.amountCents ?? booking.totalCents,
    currency: booking.currency,
    state: booking.state,
    payable: l.payable,
    ...(outcome ? { outcome } : {}),
  };
}

const businessName = async (l: Awaited<ReturnType<typeof linked>>) =>
  (await l.db.business.findUnique({ where: { id: l.owner.businessId }, select: { name: true } }))?.name ?? '';

export async function readCheckoutPage(deps: CheckoutPageDeps, bookingId: string, params: URLSearchParams): Promise<CheckoutPage> {
  const l = await linked(deps, bookingId, params);
  return pageOf(l, await businessName(l));
}

/**
 * Pay or Decline on the sandbox's test card form: `decline`, or the declined test card
 * (SANDBOX_DECLINED_CARD), declines; else the payment succeeds. Only while this checkout
 * waits for payment; the live page takes the card through the processor's own form.
 */
export async function payThroughCheckoutPage(
  deps: CheckoutPageDeps,
  bookingId: string,
  params: URLSearchParams,
  form: { outcome?: unknown; card_number?: unknown },
  requestId: string,
): Promise<CheckoutPage> {
  // What the page's form sends, or a script: anything else is refused, never taken for "pay".
  if (form.outcome !== undefined && form.outcome !== 'pay' && form.outcome !== 'decline') throw validationError('outcome', 'outcome must be pay or decline.');
  if (form.card_number !== undefined && (typeof form.card_number !== 'string' || !/^[0-9 -]{0,40}$/.test(form.card_number))) {
    throw validationError('card_number', 'card_number must be a card number: digits, spaces and dashes.');
  }
  const l = await linked(deps, bookingId, params);
  if (l.owner.livemode) throw PaymentErrors.sandboxPageOnly();
  if (!l.payable) throw PaymentErrors.checkoutNotPayable(l.booking.state);
  const card = (form.card_number ?? '').replace(/[\s-]/g, '');
  const decline = form.outcome === 'decline' || card === SANDBOX_DECLINED_CARD;
  const origin: EventOrigin = { businessId: l.owner.businessId, livemode: false, requestId, idempotencyKey: null };
  const bookingRow = await l.db.booking.findUniqueOrThrow({ where: { id: bookingId } });
  await l.db.$transaction((tx) =>
    decline
      ? recordPaymentFailure(tx, origin, bookingRow, { code: 'card_declined', message: 'The card was declined (sandbox test card)' })
      : recordPaymentSuccess(tx, origin, bookingRow),
  );
  const after = await linked(deps, bookingId, params);
  return pageOf(after, await businessName(after), decline ? 'declined' : 'paid');
}
