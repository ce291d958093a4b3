/*
 * The browser side of the Stripe stand-in (test/support/stripe-stand-in.ts): a Stripe.js of
 * its own, served at /v3/ as js.stripe.com serves the real one, with the part of its API the
 * service's pages use (Stripe(key), stripe.elements({clientSecret}), elements.create('payment'),
 * element.mount/on/destroy, stripe.confirmPayment) and the Payment Element as Stripe builds
 * it: a frame of the processor's origin holding the card fields, which confirms the
 * PaymentIntent with the publishable key and the client secret, so card numbers never touch
 * the embedding page. As the real Stripe.js, it refuses to mount in a shadow root, and it reads
 * the PaymentIntent from the page (a connection to the processor's origin) before showing the
 * form. Test cards: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined.
 */

/** Stripe.js (classic script): defines window.Stripe. */
export const STRIPE_JS = String.raw`(() => {
  const origin = new URL(document.currentScript.src).origin;
  class IntegrationError extends Error { constructor(message) { super(message); this.name = 'IntegrationError'; this.type = 'invalid_request_error'; } }
  const SECRET = /^(pi_[A-Za-z0-9]+)_secret_[A-Za-z0-9]+$/;
  let frames = 0;

  function paymentElement(key, clientSecret, locale) {
    const handlers = {};
    const emit = (name, event) => handlers[name] && handlers[name](event);
    const name = '__privateStripeFrame' + ++frames;
    const frame = document.createElement('iframe');
    frame.name = name;
    frame.title = 'Secure payment input frame';
    frame.setAttribute('allow', 'payment *');
    frame.style.border = '0';
    frame.style.width = '100%';
    frame.style.height = '13rem';
    let pending = null;
    let mounted = false;
    const listener = (event) => {
      if (event.source !== frame.contentWindow || event.origin !== origin) return;
      const m = event.data || {};
      if (m.type === 'ready') emit('ready', { elementType: 'payment' });
      if (m.type === 'change') emit('change', { elementType: 'payment', complete: m.complete, empty: m.empty });
      if (m.type === 'result' && pending) { const resolve = pending; pending = null; resolve(m.result); }
    };
    return {
      mount(target) {
        const node = typeof target === 'string' ? document.querySelector(target) : target;
        if (!node) throw new IntegrationError('The selector you specified (' + target + ') applies to no DOM elements that are currently on the page.');
        if (node.getRootNode() instanceof ShadowRoot) throw new IntegrationError('Elements cannot be mounted in a ShadowRoot. Please mount in the Light DOM.');
        if (!node.isConnected) throw new IntegrationError('The element you specified is not attached to the document.');
        const pi = SECRET.exec(clientSecret)[1];
        // As Stripe.js, the page asks the processor about the payment before showing the form.
        fetch(origin + '/v1/payment_intents/' + pi + '?key=' + encodeURIComponent(key) + '&client_secret=' + encodeURIComponent(clientSecret))
          .then(async (res) => {
            const body = await res.json();
            if (!res.ok) return emit('loaderror', { elementType: 'payment', error: body.error });
            window.addEventListener('message', listener);
            frame.addEventListener('load', () => frame.contentWindow.postMessage({ type: 'init', key, clientSecret, locale }, origin));
            frame.src = origin + '/v3/elements-inner-payment.html';
            node.appendChild(frame);
            mounted = true;
          })
          .catch(() => emit('loaderror', { elementType: 'payment', error: { type: 'api_connection_error', message: 'Could not reach the processor.' } }));
      },
      on(event, handler) { handlers[event] = handler; return this; },
      focus() { frame.focus(); },
      destroy() { window.removeEventListener('message', listener); frame.remove(); mounted = false; },
      unmount() { this.destroy(); },
      _confirm() {
        if (!mounted) throw new IntegrationError('We could not retrieve data from the specified Element. Please make sure the Element you are attempting to use is still mounted.');
        return new Promise((resolve) => { pending = resolve; frame.contentWindow.postMessage({ type: 'confirm' }, origin); });
      },
    };
  }

  window.Stripe = function Stripe(key, options) {
    if (!/^pk_(test|live)_[A-Za-z0-9]+$/.test(key || '')) throw new IntegrationError('Invalid API Key provided: ' + String(key).slice(0, 8) + '...');
    const locale = (options && options.locale) || 'auto';
    return {
      elements(opts) {
        const clientSecret = opts && opts.clientSecret;
        if (!SECRET.test(clientSecret || '')) throw new IntegrationError('Invalid value for elements(): clientSecret should be a client secret of the form ${'$'}{id}_secret_${'$'}{secret}.');
        let payment = null;
        return {
          create(type) {
            if (type !== 'payment') throw new IntegrationError('The stand-in has only the payment Element.');
            return (payment = paymentElement(key, clientSecret, opts.locale || locale));
          },
          getElement(type) { return type === 'payment' ? payment : null; },
          _payment() { return payment; },
        };
      },
      async confirmPayment(params) {
        const payment = params && params.elements && params.elements._payment();
        if (!payment) throw new IntegrationError('Invalid value for confirmPayment(): elements should have a mounted Payment Element.');
        const result = await payment._confirm();
        if (result.error) return { error: result.error };
        if (params.redirect !== 'if_required') {
          location.assign(params.confirmParams.return_url + (params.confirmParams.return_url.includes('?') ? '&' : '?') + 'payment_intent=' + result.paymentIntent.id + '&redirect_status=' + result.paymentIntent.status);
          return new Promise(() => {});
        }
        return { paymentIntent: result.paymentIntent };
      },
    };
  };
})();
`;

/** The Payment Element's frame: the card fields, of the processor's origin. */
export const PAYMENT_FRAME_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Secure payment input frame</title>
<style>body{font-family:system-ui,sans-serif;margin:0;padding:2px}label{display:block;margin:0 0 .5rem;font-size:.9rem}input{display:block;width:100%;box-sizing:border-box;padding:.45rem;font:inherit;border:1px solid #767676;border-radius:4px}.error{color:#b3261e;font-size:.9rem;margin:.3rem 0}</style>
</head><body><form novalidate>
<label>Card number <input id="number" autocomplete="cc-number" inputmode="numeric" placeholder="1234 1234 1234 1234"></label>
<label>Expiration date <input id="expiry" autocomplete="cc-exp" placeholder="MM / YY"></label>
<label>Security code <input id="cvc" autocomplete="cc-csc" inputmode="numeric" placeholder="CVC"></label>
<p class="error" id="error" role="alert"></p>
</form><script src="/v3/elements-inner-payment.js"></script></body></html>`;

/** The frame's script: talks with Stripe.js in the page by postMessage, and with the processor's API directly. */
export const PAYMENT_FRAME_JS = String.raw`(() => {
  const CARDS = { '4242424242424242': 'pm_card_visa', '4000000000000002': 'pm_card_chargeDeclined' };
  let init = null;
  let page = null;
  const field = (id) => document.getElementById(id);
  const number = () => field('number').value.replace(/[\s-]/g, '');
  const say = (text) => { field('error').textContent = text; };
  const tell = (message) => page && parent.postMessage(message, page);
  document.addEventListener('input', () => tell({ type: 'change', empty: !number(), complete: number().length >= 15 && !!field('expiry').value && !!field('cvc').value }));
  window.addEventListener('message', async (event) => {
    if (event.source !== parent) return;
    const m = event.data || {};
    if (m.type === 'init') { init = m; page = event.origin; tell({ type: 'ready' }); return; }
    if (m.type !== 'confirm' || !init) return;
    const card = number();
    let result;
    if (!card) result = { error: { type: 'validation_error', code: 'incomplete_number', message: 'Your card number is incomplete.' } };
    else if (!CARDS[card]) result = { error: { type: 'validation_error', code: 'invalid_number', message: 'Your card number is invalid.' } };
    else {
      const pi = init.clientSecret.split('_secret_')[0];
      try {
        const res = await fetch('/v1/payment_intents/' + pi + '/confirm', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ key: init.key, client_secret: init.clientSecret, payment_method: CARDS[card] }),
        });
        const body = await res.json();
        result = res.ok ? { paymentIntent: { id: body.id, object: 'payment_intent', status: body.status, amount: body.amount, currency: body.currency, client_secret: init.clientSecret } } : { error: body.error };
      } catch {
        result = { error: { type: 'api_connection_error', message: 'Could not reach the processor.' } };
      }
    }
    say(result.error ? result.error.message : '');
    tell({ type: 'result', result });
  });
})();
`;
