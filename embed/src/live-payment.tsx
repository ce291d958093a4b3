import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Booking, Checkout } from './api.ts';
import { EmbedError } from './api.ts';
import { asEmbedError } from './element.ts';
import type { Locale } from './i18n.ts';
import { lightMountPoint, loadStripe, PAYMENT_SLOT, type StripeElements, type StripeInstance, type StripePaymentElement } from './processor.ts';

/*
 * The live payment step of <rental-booking>: the processor's payment form inside the element
 * (Stripe's Payment Element with the checkout's client secret; card details go from its frame
 * to the processor, never through the element or the API), "Pay" confirms it there, and the
 * booking counts as paid only once the service says so: the processor's event reaches the
 * service, and the element reads the booking with its client_secret until its payment gate is
 * satisfied. A refused card is announced (role="alert") and the form stays for another try.
 */

type Paid = Booking & { client_secret: string };

interface Props {
  host: HTMLElement;
  api: Api;
  booking: Paid;
  checkout: Checkout;
  locale: Locale;
  onError(error: EmbedError | null): void;
  onPaid(booking: Booking): void;
}

/** How long to wait before the next read of the booking while its payment is on its way: a little longer each time, at most 4 s. */
const nextRead = (attempt: number) => Math.min(400 * 2 ** attempt, 4000);

/** The Payment Element's look from the element's own (themed) custom properties. */
function appearance(host: HTMLElement): Record<string, unknown> {
  const style = getComputedStyle(host);
  const read = (name: string) => style.getPropertyValue(name).trim() || undefined;
  const variables = { colorPrimary: read('--_primary'), colorDanger: read('--_error'), borderRadius: read('--_radius'), fontFamily: style.fontFamily || undefined };
  return { theme: 'stripe', variables: Object.fromEntries(Object.entries(variables).filter(([, v]) => v)) };
}

export function LivePayment({ host, api, booking, checkout, locale, onError, onPaid }: Props) {
  const t = locale.t;
  const [phase, setPhase] = useState<'loading' | 'unavailable' | 'ready' | 'paying' | 'confirming'>('loading');
  const processor = useRef<{ stripe: StripeInstance; elements: StripeElements } | null>(null);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => void (alive.current = false);
  }, []);

  useEffect(() => {
    // This checkout's form; a later one (or leaving the step) ends it.
    let ended = false;
    let form: StripePaymentElement | null = null;
    let mountPoint: HTMLElement | null = null;
    /** The form cannot be shown: said why, and nothing to pay with. */
    const unavailable = (error: EmbedError) => {
      if (ended) return;
      setPhase('unavailable');
      onError(error);
    };
    setPhase('loading');
    (async () => {
      const settings = (await api.theme())?.payment;
      if (!settings) throw new EmbedError('payments_not_configured', t.errors.paymentsNotConfigured);
      const Stripe = await loadStripe(settings.script_url).catch(() => {
        throw new EmbedError('processor_unavailable', t.errors.processorUnavailable);
      });
      if (ended) return;
      const stripe = Stripe(settings.publishable_key, { locale: locale.tag });
      const elements = stripe.elements({ clientSecret: checkout.client_secret, locale: locale.tag, appearance: appearance(host) });
      form = elements.create('payment');
      form.on('ready', () => !ended && setPhase('ready'));
      form.on('loaderror', (event) => unavailable(new EmbedError(event.error?.code ?? 'processor_unavailable', event.error?.message ?? t.errors.processorUnavailable)));
      mountPoint = lightMountPoint(host);
      form.mount(mountPoint);
      processor.current = { stripe, elements };
    })().catch((err) => unavailable(asEmbedError(err)));
    return () => {
      ended = true;
      processor.current = null;
      form?.destroy();
      mountPoint?.remove();
    };
  }, [checkout.client_secret]);

  /** The booking, read with its client secret until the service has the payment (the processor's event), or it was canceled meanwhile. */
  async function untilPaid(): Promise<Booking> {
    for (let attempt = 0; alive.current; attempt++) {
      const now = await api.booking(booking.id, booking.client_secret).catch(() => null); // a failed read is tried again
      if (now?.gates.payment === 'satisfied') return now;
      if (now && (now.state === 'canceled' || now.state === 'refunded')) throw new EmbedError('booking_canceled', t.errors.bookingCanceled(now.id));
      await new Promise((resolve) => setTimeout(resolve, nextRead(attempt)));
    }
    throw new EmbedError('unexpected', 'The element was removed.');
  }

  async function pay() {
    const p = processor.current;
    if (!p || phase !== 'ready') return;
    setPhase('paying');
    onError(null);
    try {
      const { error } = await p.stripe.confirmPayment({ elements: p.elements, redirect: 'if_required', confirmParams: { return_url: location.href } });
      if (error) {
        throw error.code === 'card_declined'
          ? new EmbedError('card_declined', t.errors.declined)
          : new EmbedError(error.code ?? error.type, error.message ?? t.errors.paymentFailed);
      }
      if (!alive.current) return;
      setPhase('confirming');
      const paid = await untilPaid();
      if (alive.current) onPaid(paid);
    } catch (err) {
      if (!alive.current) return;
      setPhase('ready');
      onError(asEmbedError(err));
    }
  }

  return (
    <>
      <div class="processor-form" aria-busy={phase === 'loading' ? 'true' : undefined}>
        <slot name={PAYMENT_SLOT} />
      </div>
      {phase === 'loading' ? <p class="note" role="status">{t.loadingPaymentForm}</p> : null}
      {phase === 'confirming' ? <p class="note" role="status">{t.confirmingPayment}</p> : null}
      <div class="actions">
        <button type="button" disabled={phase !== 'ready'} onClick={() => void pay()}>
          {phase === 'paying' || phase === 'confirming' ? t.paying : t.pay}
        </button>
      </div>
    </>
  );
}
