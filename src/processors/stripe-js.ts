/*
 * Stripe.js, the one script of another host the service's pages and the embedded components
 * load (on a live payment step only). Stripe asks that it always come from js.stripe.com;
 * STRIPE_JS_URL names another address for development and tests (a stand-in that speaks
 * Stripe's protocol on loopback), and the Content-Security-Policy sources follow it.
 */

/** Stripe.js v3, as Stripe serves it. */
export const STRIPE_JS_URL = 'https://js.stripe.com/v3/';

/** What a page that runs Stripe.js's Payment Element must allow, by CSP directive. */
export interface ProcessorSources {
  script: string[];
  frame: string[];
  connect: string[];
  img: string[];
}

/**
 * The sources Stripe documents for Stripe.js and its Payment Element (scripts and frames from
 * js.stripe.com, 3-D Secure frames from hooks.stripe.com, calls to api.stripe.com); for
 * another STRIPE_JS_URL, its origin in each.
 */
export function processorSources(jsUrl: string = STRIPE_JS_URL): ProcessorSources {
  const origin = new URL(jsUrl).origin;
  if (origin === new URL(STRIPE_JS_URL).origin) {
    return {
      script: ['https://js.stripe.com', 'https://*.js.stripe.com'],
      frame: ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com'],
      connect: ['https://api.stripe.com'],
      img: ['https://*.stripe.com'],
    };
  }
  return { script: [origin], frame: [origin], connect: [origin], img: [origin] };
}

const LOCAL_HOST = /^(localhost|127\.0\.0\.1|\[::1\]|.+\.localhost|.+\.test)$/;

/** STRIPE_JS_URL: https, or http on a loopback or reserved test name (a stand-in). */
export function parseStripeJsUrl(raw: string | undefined): string {
  if (!raw) return STRIPE_JS_URL;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (url && !url.username && !url.password && !url.search && !url.hash && (url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL_HOST.test(url.hostname)))) return url.href;
  throw new Error(`STRIPE_JS_URL must be an https URL of Stripe.js (default ${STRIPE_JS_URL}; http only for localhost, 127.0.0.1 or a .test/.localhost name), got '${raw}'`);
}
