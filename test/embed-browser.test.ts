import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEmbed } from '../scripts/build-embed.mjs';
import { sandboxProcessor } from '../src/processors/sandbox-processor.ts';
import { stripeProcessor } from '../src/processors/stripe-processor.ts';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';
import { CHROMIUM } from './support/browser.ts';
import { createVehicle } from './support/fixtures.ts';
import { startStripeStandIn, type StripeStandIn } from './support/stripe-stand-in.ts';

/*
 * The embedded booking components in a real browser (Debian's Chromium, playwright-core) on
 * a third-party page: a tiny HTTP server of the test serves it on another origin than the
 * API's, with a strict Content-Security-Policy (scripts and connections only from the API's
 * origin, no 'unsafe-inline'). The shop's origin is http://localhost:<port> (allowed in the
 * sandbox); http://shop.test:<port> (mapped to the loopback by the browser) is an origin the
 * business does not allow. Every request the page makes is recorded: none goes to another host.
 * SCREENSHOTS=1 saves a PNG of each step into docs/ (docs/embedding.md shows them). Both
 * storage engines.
 */

const root = path.resolve(import.meta.dirname, '..');
const SCREENSHOTS = process.env.SCREENSHOTS === '1';
const SERIOUS = new Set(['serious', 'critical']);

describe.each(ENGINES)('the embedded booking components in Chromium on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let shop: Server;
  let shopPort: number;
  let browser: Browser;
  let axeSource: string;
  let sedan: { id: string };

  /** The shop's page: two lines of HTML for the components, under a strict CSP. */
  const pageHtml = (key: string, attributes = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lone Star Rentals</title>
<script type="module" src="${t.baseUrl}/embed/v1/components.js"></script>
</head><body><main><h1>Lone Star Rentals</h1>
<rental-booking publishable-key="${key}"${attributes}></rental-booking>
</main></body></html>`;

  /** The smaller elements on a Spanish page. */
  const smallHtml = (key: string, vehicleId: string) => `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>Flota</title>
<script type="module" src="${t.baseUrl}/embed/v1/components.js"></script>
</head><body><main><h1>Flota</h1>
<rental-vehicles publishable-key="${key}"></rental-vehicles>
<rental-availability publishable-key="${key}" vehicle-id="${vehicleId}"></rental-availability>
<rental-availability publishable-key="${key}" id="no-vehicle"></rental-availability>
</main></body></html>`;

  beforeAll(async () => {
    await buildEmbed();
    axeSource = await readFile(path.join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    sedan = await createVehicle(api, { name: 'Toyota Corolla', daily_rate_cents: 4900 });
    const suv = await createVehicle(api, { name: 'Ford Explorer', daily_rate_cents: 8900 });
    await createVehicle(api, { name: 'Hidden Van' }); // not on the website
    await api.post('/v1/website', { published: true, published_vehicle_ids: [sedan.id, suv.id] });
    await api.post('/v1/branding', { primary_color: '#1d4e89', accent_color: '#0b6b3a' });

    const apiOrigin = new URL(t.baseUrl).origin;
    shop = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://shop');
      const key = url.searchParams.get('key') ?? '';
      const extra = url.searchParams.get('attrs') ?? '';
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `default-src 'none'; script-src ${apiOrigin}; connect-src ${apiOrigin}; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'`,
      });
      res.end(url.pathname === '/small' ? smallHtml(key, url.searchParams.get('vehicle') ?? '') : pageHtml(key, extra));
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopPort = (shop.address() as AddressInfo).port;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP shop.test 127.0.0.1'],
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    shop?.close();
    await t?.close();
  });

  /** The shop's page (see openShopPage), with the components' API the one other origin it may reach. */
  async function open(host: 'localhost' | 'shop.test', key: string, attrs = '', pathAndQuery = '/') {
    const shopOrigin = `http://${host}:${shopPort}`;
    const target = new URL(pathAndQuery, shopOrigin);
    target.searchParams.set('key', key);
    target.searchParams.set('attrs', attrs);
    return { ...(await openShopPage(browser, target, [t.baseUrl])), shopOrigin };
  }

  const seriousViolations = (page: Page) => axeSerious(page, axeSource);

  const shot = async (page: Page, name: string) => {
    if (SCREENSHOTS && engine === 'pglite') await page.locator('rental-booking').screenshot({ path: path.join(root, 'docs', `embed-${name}.png`) });
  };

  it('runs the whole flow on a strict-CSP page of another origin, from dates to a paid booking verified with the secret key; axe finds nothing serious at any step', async () => {
    const { page, context, requests, elsewhere, failures } = await open('localhost', t.business.test_public_key);
    const search = page.getByRole('button', { name: 'Search' });
    await search.waitFor();
    await expect.poll(() => page.locator('rental-booking').evaluate((el) => el.shadowRoot!.adoptedStyleSheets.length)).toBe(2); // branding applied
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '1-dates');

    await page.getByLabel('Pick-up').fill(localInput(5));
    await page.getByLabel('Return').fill(localInput(8));
    await search.click();
    const sedanChoice = page.getByRole('radio', { name: /Toyota Corolla.*\$147\.00 for 3 days/ });
    await sedanChoice.waitFor();
    await expect(page.getByRole('radio', { name: /Ford Explorer.*\$267\.00 for 3 days/ }).count()).resolves.toBe(1);
    await expect(page.getByText('Hidden Van').count()).resolves.toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '2-vehicles');

    await sedanChoice.check();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Total' }).textContent()).toContain('$147.00');
    await page.getByLabel('Full name').fill('Grace Hopper');
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Phone').fill('+1 512 555 0100');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '3-details');

    await page.getByRole('button', { name: 'Book' }).click();
    const pay = page.getByRole('button', { name: 'Pay' });
    await pay.waitFor();
    await expect(page.getByRole('button', { name: 'Decline' }).count()).resolves.toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '4-payment');

    await pay.click();
    await page.getByRole('heading', { name: 'Booking confirmed' }).waitFor();
    const confirmation = await page.getByRole('status').textContent();
    const bookingId = /bk_[0-9a-z]+/.exec(confirmation ?? '')?.[0];
    expect(bookingId).toBeDefined();
    expect(confirmation).toMatch(/booked|confirmed|ready_for_pickup/);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '5-confirmation');

    // The business sees it with its secret key: paid, for this customer and vehicle.
    const booking = (await api.get(`/v1/bookings/${bookingId}`)).body;
    expect(booking).toMatchObject({ vehicle_id: sedan.id, total_cents: 14700 });
    expect(['booked', 'confirmed', 'ready_for_pickup']).toContain(booking.state);
    expect(confirmation).toContain(booking.state);
    expect((await api.get(`/v1/bookings/${bookingId}/payment`)).body.state).toBe('succeeded');
    expect((await api.get(`/v1/customers/${booking.customer_id}`)).body).toMatchObject({ name: 'Grace Hopper', email: 'grace@example.com' });

    // The contract's events, in order.
    const seen = await events(page);
    expect(seen.map((e) => e.type)).toEqual(['rental:quote', 'rental:booking', 'rental:paid']);
    expect(seen[0].detail).toMatchObject({ quote_id: expect.stringMatching(/^qt_/), total_cents: 14700, currency: 'usd' });
    expect(seen[1].detail).toEqual({ booking_id: bookingId, state: 'pending_payment' });
    expect(seen[2].detail).toEqual({ booking_id: bookingId });

    // Nothing loaded from, or was sent to, another host; the CSP held without a violation.
    expect(elsewhere).toEqual([]);
    expect(requests.every((r) => r.url.startsWith(`http://localhost:${shopPort}`) || r.url.startsWith(t.baseUrl))).toBe(true);
    expect(await cspViolations(page)).toEqual([]);
    expect(failures).toEqual([]);
    await context.close();
  }, 120_000);

  it('declines in the sandbox: the error is announced, rental:error card_declined, and Pay afterwards still books', async () => {
    const { page, context, elsewhere } = await open('localhost', t.business.test_public_key, ` vehicle-id="${sedan.id}"`);
    await page.getByLabel('Pick-up').fill(localInput(12));
    await page.getByLabel('Return').fill(localInput(14));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('radio', { name: /Toyota Corolla/ }).check();
    await page.getByLabel('Full name').fill('Alan Turing');
    await page.getByLabel('Email').fill('alan@example.com');
    await page.getByRole('button', { name: 'Book' }).click();
    await page.getByRole('button', { name: 'Decline' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('The card was declined');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '4b-declined');
    const seen = await events(page);
    expect(seen.at(-1)).toEqual({ type: 'rental:error', detail: { code: 'card_declined', message: expect.stringContaining('declined') } });
    const bookingId = (seen.find((e) => e.type === 'rental:booking')!.detail as { booking_id: string }).booking_id;
    expect((await api.get(`/v1/bookings/${bookingId}`)).body.state).toBe('pending_payment');
    expect((await api.get(`/v1/bookings/${bookingId}/payment`)).body.state).toBe('failed');

    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('heading', { name: 'Booking confirmed' }).waitFor();
    expect((await api.get(`/v1/bookings/${bookingId}/payment`)).body.state).toBe('succeeded');
    expect(elsewhere).toEqual([]);
    await context.close();
  }, 120_000);

  it('is usable with the keyboard alone', async () => {
    const { page, context } = await open('localhost', t.business.test_public_key);
    await page.getByRole('button', { name: 'Search' }).waitFor();
    // Tab into the element: Pick-up, Return (their default dates), then Search.
    const focusedName = () => page.evaluate(() => {
      let el: Element | null = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return el ? `${el.tagName.toLowerCase()}:${(el as HTMLInputElement).name || el.textContent}` : '';
    });
    const tabTo = async (wanted: RegExp, max = 20) => {
      for (let i = 0; i < max; i++) {
        if (wanted.test(await focusedName())) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`never reached ${wanted} with Tab (at ${await focusedName()})`);
    };
    await tabTo(/^button:Search$/);
    await page.keyboard.press('Enter');
    await page.getByRole('radio', { name: /Toyota Corolla/ }).waitFor();
    await tabTo(/^input:vehicle$/);
    await page.keyboard.press('Space');
    await tabTo(/^input:name$/);
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Tab');
    await page.keyboard.type('ada@example.com');
    await tabTo(/^button:Book$/);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Pay' }).waitFor();
    await tabTo(/^button:Pay$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Booking confirmed' }).waitFor();
    expect((await events(page)).map((e) => e.type)).toContain('rental:paid');
    await context.close();
  }, 120_000);

  it('says why on an origin the business does not allow: no Access-Control-Allow-Origin, an alert and rental:error', async () => {
    const { page, context, requests, elsewhere } = await open('shop.test', t.business.test_public_key);
    await page.getByRole('button', { name: 'Search' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain(`This site (http://shop.test:${shopPort}) is not allowed to take bookings with this key`);
    const error = (await events(page)).find((e) => e.type === 'rental:error');
    expect(error?.detail).toMatchObject({ code: 'origin_not_allowed' });
    // The API answered without CORS, so the page read nothing.
    const answer = await fetch(`${t.baseUrl}/v1/public/vehicles`, { headers: { authorization: `Bearer ${t.business.test_public_key}`, origin: `http://shop.test:${shopPort}` } });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(requests.some((r) => r.url.startsWith(`${t.baseUrl}/v1/`))).toBe(true);
    expect(elsewhere).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '6-refused-origin');
    await context.close();
  }, 120_000);

  it('never sends a secret key put in publishable-key: the element shows the error and emits secret_key_in_browser', async () => {
    const secret = t.business.test_secret_key;
    const { page, context, requests } = await open('localhost', secret);
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('secret key');
    expect(await events(page)).toEqual([{ type: 'rental:error', detail: { code: 'secret_key_in_browser', message: expect.stringContaining('nothing was sent') } }]);
    await expect(page.getByRole('button', { name: 'Search' }).count()).resolves.toBe(0);
    // Only the page and the script: no request carries the key anywhere (URL, header or body).
    const toApi = requests.filter((r) => r.url.startsWith(t.baseUrl));
    expect(toApi.map((r) => new URL(r.url).pathname)).toEqual(['/embed/v1/components.js']);
    const carrying = requests.filter((r) => r.url.startsWith(t.baseUrl) && (r.url.includes(secret) || JSON.stringify(r.headers).includes(secret) || (r.body ?? '').includes(secret)));
    expect(carrying).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '7-secret-key');
    await context.close();
  }, 120_000);

  it("shows the smaller elements, the public fleet and a vehicle's free days, in the page's language", async () => {
    const { page, context, elsewhere, failures } = await open('localhost', t.business.test_public_key, '', `/small?vehicle=${sedan.id}`);
    try {
      await page.getByRole('heading', { name: 'Nuestros vehículos' }).waitFor({ timeout: 10_000 });
    } catch (err) {
      throw new Error(`${String(err)}\nfailures: ${failures.join('; ')}\nhtml: ${await page.locator('rental-vehicles').evaluate((el) => el.shadowRoot?.innerHTML)}`);
    }
    await expect.poll(() => page.getByText(/Toyota Corolla/).count()).toBe(1);
    // Money in the page's locale (es): "49,00 US$ al día".
    await expect.poll(() => page.locator('rental-vehicles').evaluate((el) => el.shadowRoot!.textContent)).toMatch(/49,00\s?US\$ al día/);
    await page.getByRole('heading', { name: 'Días libres' }).first().waitFor();
    await expect.poll(() => page.getByRole('row').count()).toBe(30);
    // Without its vehicle-id, the element says so (in the page's language) and emits rental:error.
    await expect.poll(() => page.locator('#no-vehicle').getByRole('alert').textContent()).toContain('Falta el atributo vehicle-id');
    expect((await events(page)).filter((e) => e.type === 'rental:error').map((e) => e.detail.code)).toEqual(['vehicle_id_missing']);
    expect(await seriousViolations(page)).toEqual([]);
    expect(elsewhere).toEqual([]);
    if (SCREENSHOTS && engine === 'pglite') await page.locator('main').screenshot({ path: path.join(root, 'docs', 'embed-8-small-elements.png') });
    await context.close();
  }, 120_000);
});

const STRIPE_SECRET_KEY = 'sk_test_standin_embed_4eC39HqLyjWDarjtT1zdp7dc';
const STRIPE_PUBLISHABLE_KEY = 'pk_test_standinEmbed51HdXyZ';
const STRIPE_WEBHOOK_SECRET = 'whsec_standin_embed';

/*
 * Live mode: the processor's payment form inside <rental-booking>. The processor is the Stripe
 * stand-in on loopback (test/support/stripe-stand-in.ts), reached by the browser as
 * http://stripe.test:<port>: it serves its own Stripe.js (STRIPE_JS_URL), whose Payment
 * Element frame confirms the PaymentIntent, and sends Stripe's signed events to the service,
 * as Stripe does. The shop's strict CSP allows the API's origin and, for the payment step,
 * exactly the processor's: nothing else.
 */
describe.each(ENGINES)('the live payment step inside <rental-booking>, against the Stripe stand-in, on %s', (engine) => {
  let t: TestApp;
  let stripe: StripeStandIn;
  let api: ReturnType<typeof restClient>;
  let shop: Server;
  let shopPort: number;
  let processor: string;
  let browser: Browser;
  let axeSource: string;

  beforeAll(async () => {
    await buildEmbed();
    axeSource = await readFile(path.join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
    stripe = await startStripeStandIn({ secretKey: STRIPE_SECRET_KEY, webhookSecret: STRIPE_WEBHOOK_SECRET, publishableKey: STRIPE_PUBLISHABLE_KEY });
    processor = `http://stripe.test:${new URL(stripe.url).port}`;
    const settings = { secretKey: STRIPE_SECRET_KEY, apiUrl: stripe.url, timeoutMs: 5_000, maxNetworkRetries: 0 };
    t = await startTestApp(
      engine,
      { stripe: { ...settings, webhookSecret: STRIPE_WEBHOOK_SECRET, publishableKey: STRIPE_PUBLISHABLE_KEY, jsUrl: `${processor}/v3/` } },
      { processors: { test: sandboxProcessor(), live: stripeProcessor(settings) } },
    );
    stripe.deliverEventsTo(`${t.baseUrl}/v1/processor/stripe/webhook`);
    api = restClient(t.baseUrl, t.business.live_secret_key);
    const apiOrigin = new URL(t.baseUrl).origin;
    shop = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://shop');
      // /: the CSP an integrator of live payments needs (docs/embedding.md); /no-processor: the sandbox's, without the processor.
      const extra = url.pathname === '/no-processor' ? '' : ` ${processor}`;
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `default-src 'none'; script-src ${apiOrigin}${extra}; connect-src ${apiOrigin}${extra}; frame-src${extra || " 'none'"}; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'`,
      });
      res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lone Star Rentals</title>
<script type="module" src="${t.baseUrl}/embed/v1/components.js"></script>
</head><body><main><h1>Lone Star Rentals</h1>
<rental-booking publishable-key="${t.business.live_public_key}"></rental-booking>
</main></body></html>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopPort = (shop.address() as AddressInfo).port;
    const car = await createVehicle(api, { name: 'Tesla Model 3', daily_rate_cents: 9900 });
    // Live: no localhost unless the business allows it (local development).
    expect((await api.post('/v1/website', { published: true, published_vehicle_ids: [car.id], allowed_origins: [`http://localhost:${shopPort}`] })).status).toBe(200);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP stripe.test 127.0.0.1'],
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    shop?.close();
    await t?.close();
    await stripe?.close();
  });

  /** The shop page through the flow up to the payment step: dates, the car, the customer, Book. */
  async function toPayment(pathname: string, days: number, customer: { name: string; email: string }) {
    const opened = await openShopPage(browser, new URL(pathname, `http://localhost:${shopPort}`), [t.baseUrl, processor]);
    const { page } = opened;
    await page.getByLabel('Pick-up').fill(localInput(days));
    await page.getByLabel('Return').fill(localInput(days + 3));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('radio', { name: /Tesla Model 3.*\$297\.00 for 3 days/ }).check();
    await page.getByLabel('Full name').fill(customer.name);
    await page.getByLabel('Email').fill(customer.email);
    // Until the payment step, nothing comes from the processor's host.
    expect(opened.requests.filter((r) => r.url.startsWith(processor))).toEqual([]);
    await page.getByRole('button', { name: 'Book' }).click();
    return opened;
  }

  const bookingOf = async (page: Page) => ((await events(page)).find((e) => e.type === 'rental:booking')!.detail as { booking_id: string }).booking_id;

  it('mounts the processor\'s payment form inside the element; a declined card is announced and the customer tries again; rental:paid comes only once the service has the payment', async () => {
    const { page, context, requests, elsewhere, failures } = await toPayment('/', 30, { name: 'Katherine Johnson', email: 'katherine@example.com' });
    const frame = page.frameLocator('rental-booking iframe[title="Secure payment input frame"]');
    await frame.getByLabel('Card number').waitFor();
    // The form is the element's: a light-DOM child slotted into its shadow root's payment panel, drawn inside the element's box.
    const placement = await page.locator('rental-booking').evaluate((el) => {
      const iframe = el.querySelector('iframe')!;
      const slot = iframe.parentElement!.assignedSlot;
      return { slot: slot?.name ?? null, inShadow: slot?.getRootNode() === el.shadowRoot, inPanel: !!slot?.closest('[part="payment"]'), src: new URL(iframe.src).origin };
    });
    expect(placement).toEqual({ slot: 'rental-payment-form', inShadow: true, inPanel: true, src: processor });
    const [host, form] = await Promise.all([page.locator('rental-booking').boundingBox(), page.locator('rental-booking iframe').boundingBox()]);
    expect(form!.y).toBeGreaterThanOrEqual(host!.y);
    expect(form!.y + form!.height).toBeLessThanOrEqual(host!.y + host!.height);
    // Stripe.js came from the processor, and only it.
    expect(requests.filter((r) => r.url.startsWith(processor)).map((r) => new URL(r.url).pathname)).toContain('/v3/');
    const bookingId = await bookingOf(page);
    expect((await api.get(`/v1/bookings/${bookingId}`)).body.state).toBe('checkout_started');
    expect(await axeSerious(page, axeSource)).toEqual([]);
    await page.getByRole('button', { name: 'Pay' }).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Pay' }).isEnabled()).toBe(true);
    if (SCREENSHOTS && engine === 'pglite') await page.locator('rental-booking').screenshot({ path: path.join(root, 'docs', 'embed-4c-live-payment.png') });

    // A declined card: announced, rental:error, nothing paid; the form stays for another try.
    await frame.getByLabel('Card number').fill('4000 0000 0000 0002');
    await frame.getByLabel('Expiration date').fill('12 / 34');
    await frame.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The card was declined');
    expect((await events(page)).at(-1)).toEqual({ type: 'rental:error', detail: { code: 'card_declined', message: expect.stringContaining('declined') } });
    await stripe.eventsSent();
    expect((await api.get(`/v1/bookings/${bookingId}`)).body.state).toBe('pending_payment');
    expect((await api.get(`/v1/bookings/${bookingId}/payment`)).body).toMatchObject({ state: 'failed', failure_code: 'generic_decline' });
    expect(await axeSerious(page, axeSource)).toEqual([]);

    // Another card. Stripe's event is late: the element waits for the service, and says so.
    stripe.holdEvents();
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Payment accepted' }).count()).toBe(1);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await events(page)).map((e) => e.type)).not.toContain('rental:paid');
    expect((await api.get(`/v1/bookings/${bookingId}`)).body.state).toBe('pending_payment');
    stripe.releaseEvents();
    await page.getByRole('heading', { name: 'Booking confirmed' }).waitFor();
    const confirmation = await page.getByRole('status').textContent();
    expect(confirmation).toContain(bookingId);

    // The business sees it paid, with its secret key.
    const booking = (await api.get(`/v1/bookings/${bookingId}`)).body;
    expect(['booked', 'confirmed', 'ready_for_pickup']).toContain(booking.state);
    expect(confirmation).toContain(booking.state);
    expect((await api.get(`/v1/bookings/${bookingId}/payment`)).body.state).toBe('succeeded');
    expect(stripe.delivered.map((d) => [d.type, d.status])).toEqual(expect.arrayContaining([['payment_intent.payment_failed', 200], ['payment_intent.succeeded', 200]]));
    const seen = await events(page);
    expect(seen.map((e) => e.type)).toEqual(['rental:quote', 'rental:booking', 'rental:error', 'rental:paid']);
    expect(seen.at(-1)!.detail).toEqual({ booking_id: bookingId });
    // The processor's form left with its step.
    await expect(page.locator('rental-booking iframe').count()).resolves.toBe(0);
    expect(await axeSerious(page, axeSource)).toEqual([]);

    // Card numbers went to the processor's frame only: never to the API or the shop.
    const toOthers = requests.filter((r) => !r.url.startsWith(processor));
    expect(toOthers.filter((r) => /4242|4000 ?0000/.test(`${r.url} ${r.body ?? ''}`))).toEqual([]);
    // Nothing from any other host; the page's CSP (the API and the processor) held.
    expect(elsewhere).toEqual([]);
    expect(requests.every((r) => [`http://localhost:${shopPort}`, t.baseUrl, processor].some((o) => new URL(r.url).origin === new URL(o).origin))).toBe(true);
    expect(await cspViolations(page)).toEqual([]);
    expect(failures).toEqual([]);
    await context.close();
  }, 180_000);

  it("serves the checkout's hosted live page on the same configuration: Stripe.js from STRIPE_JS_URL under the page's own CSP, and the payment books the booking", async () => {
    const car = (await api.get('/v1/vehicles?limit=1')).body.data[0].id;
    const created = await api.post('/v1/bookings', { vehicle_id: car, start_at: future(50), end_at: future(52), customer: { name: 'Mary Jackson', email: 'mary@example.com' } });
    const checkout = (await api.post(`/v1/bookings/${created.body.id}/checkout`)).body;
    const { page, context, elsewhere, failures } = await openShopPage(browser, new URL(checkout.url), [processor]);
    const frame = page.frameLocator('#payment-element iframe');
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByRole('button', { name: 'Pay' }).click();
    // Stripe.js comes back to the page; by then the booking may already be booked (the event can be first).
    await expect.poll(() => page.locator('main').textContent()).toMatch(/Payment received|is (booked|confirmed|ready_for_pickup)/);
    await stripe.eventsSent();
    expect(['booked', 'confirmed', 'ready_for_pickup']).toContain((await api.get(`/v1/bookings/${created.body.id}`)).body.state);
    expect(elsewhere).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(failures).toEqual([]);
    await context.close();
  }, 120_000);

  it("says why when the page's policy keeps the processor's script out: an alert and rental:error processor_unavailable", async () => {
    const { page, context } = await toPayment('/no-processor', 40, { name: 'Dorothy Vaughan', email: 'dorothy@example.com' });
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The secure payment form could not be loaded');
    expect((await events(page)).at(-1)).toMatchObject({ type: 'rental:error', detail: { code: 'processor_unavailable' } });
    expect(await cspViolations(page)).toEqual(expect.arrayContaining([expect.stringMatching(/^script-src(-elem)? http:\/\/stripe\.test:/)]));
    await expect(page.getByRole('button', { name: 'Pay' }).isDisabled()).resolves.toBe(true);
    await context.close();
  }, 120_000);
});

/**
 * A shop's page in a fresh context of `browser`: every request recorded, any to an origin
 * other than the page's own and `allowed` refused (and listed in `elsewhere`), the
 * contract's DOM events and CSP violations collected.
 */
async function openShopPage(browser: Browser, target: URL, allowed: string[]) {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  const page = await context.newPage();
  const requests: { url: string; headers: Record<string, string>; body: string | null }[] = [];
  const elsewhere: string[] = [];
  const origins = [target.origin, ...allowed];
  await page.route('**/*', async (route) => {
    const request = route.request();
    requests.push({ url: request.url(), headers: await request.allHeaders(), body: request.postData() });
    if (origins.some((o) => new URL(request.url()).origin === new URL(o).origin)) return route.continue();
    elsewhere.push(request.url());
    return route.abort();
  });
  const failures: string[] = [];
  page.on('pageerror', (err) => failures.push(err.message));
  await page.addInitScript(() => {
    const w = window as unknown as { rentalEvents: { type: string; detail: unknown }[]; cspViolations: string[] };
    w.rentalEvents = [];
    w.cspViolations = [];
    for (const type of ['rental:quote', 'rental:booking', 'rental:paid', 'rental:error']) {
      document.addEventListener(type, (e) => w.rentalEvents.push({ type, detail: (e as CustomEvent).detail }));
    }
    document.addEventListener('securitypolicyviolation', (e) => w.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(target.href);
  return { page, context, requests, elsewhere, failures };
}

const events = (page: Page) => page.evaluate(() => (window as unknown as { rentalEvents: { type: string; detail: Record<string, unknown> }[] }).rentalEvents);
const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

/** axe-core over the page, shadow roots and frames included (axe is put in each): the serious and critical violations. */
async function axeSerious(page: Page, axeSource: string): Promise<string[]> {
  for (const frame of page.frames()) await frame.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations.filter((v) => SERIOUS.has(v.impact)).map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

/** An ISO time `days` from now at 10:00 UTC. */
const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10) + 'T10:00:00.000Z';

/** `YYYY-MM-DDTHH:mm`, `days` from today at 10:00 local time, as a datetime-local input takes it. */
function localInput(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  d.setHours(10, 0, 0, 0);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
