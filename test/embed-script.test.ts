import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEmbed, EMBED_BUDGET_GZIP_BYTES, embedDist, gzipSize } from '../scripts/build-embed.mjs';
import { loadConfig } from '../src/config.ts';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';

/*
 * The embedded components as the service serves them: GET /embed/v1/components.js (one ES
 * module, CORS *, within its 60 KB gzip budget, the build failing over it) and
 * GET /embed/v1/theme (the business's branding, for a publishable key from an allowed origin;
 * live, the processor's payment form's settings), the theme on both engines.
 */

describe('the embedded components script', () => {
  let t: TestApp;

  beforeAll(async () => {
    await buildEmbed();
    t = await startTestApp('pglite');
  }, 120_000);
  afterAll(async () => t?.close());

  it('serves one ES module with CORS *, an ETag and nosniff; any other /embed path is 404', async () => {
    const res = await fetch(`${t.baseUrl}/embed/v1/components.js`, { headers: { origin: 'https://anywhere.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await res.text();
    expect(text).toContain('rental-booking');
    // One module: it imports nothing, from here or elsewhere.
    expect(text).not.toMatch(/\bimport\s*\(|^import\s|from\s*["'`]https?:/m);
    const again = await fetch(`${t.baseUrl}/embed/v1/components.js`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    const other = await fetch(`${t.baseUrl}/embed/v1/other.js`);
    expect(other.status).toBe(404);
    expect((await other.json()).error.code).toBe('route_not_found');
    expect((await fetch(`${t.baseUrl}/embed/v1/components.js`, { method: 'POST' })).status).toBe(405);
  });

  it(`is at most ${EMBED_BUDGET_GZIP_BYTES} bytes gzip, and its build fails over its budget`, async () => {
    const size = gzipSize(await readFile(path.join(embedDist, 'components.js')));
    expect(size).toBeGreaterThan(1000);
    expect(size).toBeLessThanOrEqual(EMBED_BUDGET_GZIP_BYTES);
    await expect(buildEmbed({ force: true, budget: 1000 })).rejects.toThrow(/over its budget of 1000 bytes/);
    // The refused build left the served one in place.
    expect(gzipSize(await readFile(path.join(embedDist, 'components.js')))).toBe(size);
  }, 120_000);

});

describe.each(ENGINES)('the embedded components\' theme on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine, { stripe: { ...loadConfig({}).stripe, publishableKey: 'pk_live_51ThemeTestKey', jsUrl: 'https://js.stripe.com/v3/' } });
  }, 120_000);
  afterAll(async () => t?.close());

  it("answers the theme (the business's branding) to a publishable key from an allowed origin only", async () => {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    await api.post('/v1/branding', { primary_color: '#8a1538', accent_color: '#0b6b3a', font: 'Georgia' });
    await api.post('/v1/website', { allowed_origins: ['https://shop.example'] });
    const theme = (origin: string) => fetch(`${t.baseUrl}/embed/v1/theme`, { headers: { authorization: `Bearer ${t.business.test_public_key}`, origin } });
    const ok = await theme('https://shop.example');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    // The sandbox pays with the test card: no processor form.
    expect(await ok.json()).toEqual({ object: 'embed_theme', livemode: false, business_name: expect.any(String), primary_color: '#8a1538', secondary_color: null, accent_color: '#0b6b3a', font: 'Georgia', payment: null });
    const refused = await theme('https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fetch(`${t.baseUrl}/embed/v1/theme`)).status).toBe(401);
  });

  it("tells a live key's elements the processor's payment form to mount: Stripe.js's address and the platform's publishable key", async () => {
    const live = await fetch(`${t.baseUrl}/embed/v1/theme`, { headers: { authorization: `Bearer ${t.business.live_public_key}` } });
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ livemode: true, payment: { processor: 'stripe', publishable_key: 'pk_live_51ThemeTestKey', script_url: 'https://js.stripe.com/v3/' } });
  });
});

describe.each(ENGINES)('the embedded components\' theme without live card payments on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  }, 120_000);
  afterAll(async () => t?.close());

  it('says so (payment null): the live payment step then shows why instead of a form', async () => {
    const live = await fetch(`${t.baseUrl}/embed/v1/theme`, { headers: { authorization: `Bearer ${t.business.live_public_key}` } });
    expect((await live.json()).payment).toBeNull();
  });
});
