/*
 * The processor's own payment form on the live payment step: Stripe.js, loaded from Stripe
 * (the one script of another host the elements ever load, and only there), and its Payment
 * Element. Stripe.js is a classic script that defines `window.Stripe`; it must come from
 * Stripe itself (never bundled), so it is added to the page's <head> as Stripe's own loader
 * (@stripe/stripe-js) does. That loader hard-codes js.stripe.com; the service names the URL
 * (GET /embed/v1/theme: `payment.script_url`), so a stand-in can serve it in tests.
 *
 * Stripe Elements refuse to mount inside a shadow root ("Elements cannot be mounted in a
 * ShadowRoot. Please mount in the Light DOM."): its frames talk to Stripe.js through the
 * page's document. The element therefore mounts the Payment Element into a child of its own,
 * in the light DOM, which its shadow root shows through a named <slot> where the form belongs.
 */

/** The part of Stripe.js the payment step uses (https://docs.stripe.com/js). */
export interface StripeError {
  type: string;
  code?: string;
  decline_code?: string;
  message?: string;
}
export interface StripePaymentElement {
  mount(target: HTMLElement): void;
  on(event: 'ready' | 'loaderror' | 'change', handler: (event: { error?: StripeError; complete?: boolean }) => void): StripePaymentElement;
  destroy(): void;
}
export interface StripeElements {
  create(type: 'payment', options?: Record<string, unknown>): StripePaymentElement;
}
export interface StripeInstance {
  elements(options: { clientSecret: string; appearance?: Record<string, unknown>; locale?: string }): StripeElements;
  confirmPayment(options: { elements: StripeElements; redirect: 'if_required'; confirmParams: { return_url: string } }): Promise<{ error?: StripeError; paymentIntent?: { id: string; status: string } }>;
}
type StripeFactory = (publishableKey: string, options?: { locale?: string }) => StripeInstance;

const loading = new Map<string, Promise<StripeFactory>>();

/** Stripe.js from `url`, once per page (a script already on the page is reused). */
export function loadStripe(url: string): Promise<StripeFactory> {
  const w = window as unknown as { Stripe?: StripeFactory };
  let pending = loading.get(url);
  if (!pending) {
    pending = new Promise<StripeFactory>((resolve, reject) => {
      if (w.Stripe) return resolve(w.Stripe);
      const script = [...document.querySelectorAll<HTMLScriptElement>('script[src]')].find((s) => s.src === url) ?? document.createElement('script');
      script.addEventListener('load', () => (w.Stripe ? resolve(w.Stripe) : reject(new Error('Stripe.js did not load'))));
      script.addEventListener('error', () => reject(new Error('Stripe.js did not load')));
      if (!script.isConnected) {
        script.src = url;
        document.head.append(script);
      }
    });
    // A failure (offline, a page policy that refuses the script) may be retried.
    pending.catch(() => loading.delete(url));
    loading.set(url, pending);
  }
  return pending;
}

/** The named slot, in the element's shadow root, that shows the light-DOM child the form is mounted in. */
export const PAYMENT_SLOT = 'rental-payment-form';

/** A light-DOM child of `host` for the Payment Element, shown by the shadow root's <slot name=PAYMENT_SLOT>. */
export function lightMountPoint(host: HTMLElement): HTMLElement {
  const node = document.createElement('div');
  node.slot = PAYMENT_SLOT;
  host.append(node);
  return node;
}
