import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient, startTestApp, type TestApp } from './support/app.ts';
import { launchBrowser, type TestBrowser } from './support/browser.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/*
 * The developer pages in a real browser (Debian's Chromium) that may reach nothing but the
 * service, as on a machine without internet: GraphiQL at /graphql runs a query with a key typed
 * into its headers pane, and the API reference at /docs renders every operation of the
 * OpenAPI document.
 */

describe('developer pages, offline, in Chromium', () => {
  let t: TestApp;
  let browser: TestBrowser;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('GraphiQL loads with nothing from elsewhere and runs a query with the key set in its headers pane', async () => {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    const booking = await createBooking(api, (await createVehicle(api)).id);

    const { page, blocked, failures } = await browser.offlinePage(t.baseUrl);
    await page.goto(`${t.baseUrl}/graphql`);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 30_000 });
    expect(await page.title()).toBe('Rental API · GraphiQL');

    // The headers pane starts with the Authorization header to fill in; put the key there.
    await page.getByText('Headers', { exact: true }).click();
    const headers = page.locator('.graphiql-editor-tool .graphiql-editor').last();
    await headers.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${t.business.test_secret_key}` }));
    await page.locator('.graphiql-execute-button').click();

    const result = page.locator('.graphiql-response');
    await expect.poll(async () => (await result.textContent()) ?? '', { timeout: 30_000 }).toContain(booking.id);
    expect(await result.textContent()).not.toContain('"errors"');
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
    await page.close();
  });

  it('the API reference at /docs renders the OpenAPI document with nothing from elsewhere', async () => {
    const { page, blocked, failures } = await browser.offlinePage(t.baseUrl);
    await page.goto(`${t.baseUrl}/docs`);
    await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 30_000 });
    const openapi = (await restClient(t.baseUrl, null).get('/v1/openapi.json')).body;
    // Swagger UI shows every operation and every webhook of the document as a block.
    const blocks = (section: Record<string, Record<string, unknown>>) => Object.values(section).reduce((n, methods) => n + Object.keys(methods).length, 0);
    const operations = blocks(openapi.paths) + blocks(openapi.webhooks);
    expect(await page.locator('.swagger-ui .opblock').count()).toBe(operations);
    await expect.poll(() => page.locator('.swagger-ui .opblock-summary-path', { hasText: '/v1/bookings/{booking_id}/cancel' }).count()).toBeGreaterThan(0);
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
    await page.close();
  });
});
