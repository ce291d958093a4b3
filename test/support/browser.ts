import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it), driven by playwright-core. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface TestBrowser {
  browser: Browser;
  /**
   * A page that may reach only `origin`: every request elsewhere is refused and remembered,
   * so a page that needs the internet fails the way it would on a machine without one.
   */
  offlinePage(origin: string): Promise<{ page: Page; blocked: string[]; failures: string[] }>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  // playwright-core gives each launch a fresh, empty profile of its own.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    browser,
    async offlinePage(origin) {
      const page = await browser.newPage();
      const blocked: string[] = [];
      const failures: string[] = [];
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
        blocked.push(url);
        return route.abort();
      });
      page.on('pageerror', (err) => failures.push(err.message));
      page.on('requestfailed', (req) => {
        if (req.url().startsWith(origin)) failures.push(`${req.url()}: ${req.failure()?.errorText}`);
      });
      return { page, blocked, failures };
    },
    async close() {
      await browser.close();
    },
  };
}
