import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildOps } from '../scripts/build-ops.mjs';
import { restClient } from './support/app.ts';
import { launchBrowser, type TestBrowser } from './support/browser.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { spawnServer, type Child } from './support/processes.ts';
import { startReceiver } from './support/receiver.ts';

/*
 * The ops screen (/ops) in a real browser (Debian's Chromium) that may reach nothing but the
 * service: the real server as a child process on PostgreSQL, staff signed in with links the
 * admin command prints, live events over graphql-ws with a cut connection caught up from the
 * events query, and the session's cookie, CSRF and Origin rules seen from outside.
 */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');

describe('the ops screen', () => {
  let db: Awaited<ReturnType<typeof createTestPostgresDatabase>>;
  let server: Child & { baseUrl: string };
  let browser: TestBrowser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let business: { business_id: string; test_secret_key: string };
  let owner: string;
  let viewer: string;
  let agent: string;

  /** `npm run admin -- ...` against the server's database, its JSON output. */
  const admin = async (...args: string[]) => {
    const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', ...args, '--json'], { cwd: root, env: { ...process.env, DATABASE_URL: db.url, PUBLIC_URL: server.baseUrl } });
    return JSON.parse(stdout);
  };
  const signInLink = async (member: string) => (await admin('member', 'sign-in-link', '--business', business.business_id, '--member', member, '--mode', 'test')).url as string;

  /** A page of its own (cookies included) signed in through `link`, its WebSocket routed so a test can cut it. */
  async function signedInPage(link: string) {
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (err) => failures.push(err.message));
    await page.route('**/*', (route) => (route.request().url().startsWith(server.baseUrl) ? route.continue() : route.abort()));
    // Each WebSocket of the page goes through the test: the page's end and the server's end.
    const sockets = { down: false, open: [] as WebSocketRoute[] };
    await page.routeWebSocket(/\/graphql$/, (ws) => {
      if (sockets.down) return ws.close({ code: 1001, reason: 'cut by the test' });
      sockets.open.push(ws, ws.connectToServer());
    });
    await page.goto(link);
    return {
      context,
      page,
      failures,
      /** Close every WebSocket and refuse new ones until `restore()`. */
      async cut() {
        sockets.down = true;
        for (const ws of sockets.open.splice(0)) await ws.close({ code: 1001, reason: 'cut by the test' });
      },
      restore() {
        sockets.down = false;
      },
    };
  }

  /** SQL on the server's database (to age a link or a session). */
  const sql = async (text: string, values: unknown[]) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(text, values);
    } finally {
      await client.end();
    }
  };
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  const sessionCookie = async (context: BrowserContext) => (await context.cookies(server.baseUrl)).find((c) => c.name === 'ops_session')!;
  const feedEvent = (page: Page, text: string) => page.getByTestId('feed').getByText(text).first();
  const subscriptionOpen = async () => {
    for (let tries = 0; ; tries++) {
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      if (/^graphql_subscriptions_open\{transport="websocket"\} [1-9]/m.test(metrics)) return;
      if (tries > 150) throw new Error('the ops screen never opened its subscription');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    await buildOps();
    db = await createTestPostgresDatabase();
    // The board's own requests and the test's, all as one member within a second or two: the
    // per-key limit is raised out of their way (what it does is tested elsewhere).
    server = await spawnServer({ DATABASE_URL: db.url, REDIS_URL: '', WEBHOOK_POLL_MS: '200', SANDBOX_RETRY_SCALE: '0.001', RATE_LIMIT_TEST: '1000' });
    business = await admin('business', 'create', '--name', 'Harbor Car Rentals');
    owner = (await admin('member', 'create', '--business', business.business_id, '--email', 'olivia@harbor.example', '--name', 'Olivia Owner', '--role', 'owner')).id;
    viewer = (await admin('member', 'create', '--business', business.business_id, '--email', 'victor@harbor.example', '--name', 'Victor Viewer', '--role', 'viewer')).id;
    agent = (await admin('member', 'create', '--business', business.business_id, '--email', 'ana@harbor.example', '--name', 'Ana Agent', '--role', 'agent')).id;
    browser = await launchBrowser();
    // A webhook endpoint that always fails: the failing-webhooks panel lists it.
    receiver = await startReceiver(() => 500);
    const api = restClient(server.baseUrl, business.test_secret_key);
    expect((await api.post('/v1/developers/webhooks', { url: receiver.url, enabled_events: ['booking.created'], description: 'CRM sync' })).status).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.stop();
    await db?.drop();
  });

  it('without a session: the page is the sign-in page and the session endpoint answers 401', async () => {
    const { page, blocked, failures } = await browser.offlinePage(server.baseUrl);
    await page.goto(`${server.baseUrl}/ops`);
    await page.getByRole('heading', { name: 'Sign in to the ops screen' }).waitFor();
    expect(await page.textContent('body')).toContain('npm run admin -- member sign-in-link');
    await page.close();
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);

    const anonymous = restClient(server.baseUrl, null);
    const session = await anonymous.get('/ops/session');
    expect(session.status).toBe(401);
    expect(session.body.error).toMatchObject({ type: 'authentication_error', code: 'session_required' });
    // Nor does a made-up cookie reach the API.
    const forged = await fetch(`${server.baseUrl}/v1/bookings`, { headers: { cookie: `ops_session=${'A'.repeat(43)}` } });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as any).error.code).toBe('session_required');
  });

  it('signs in with the admin-printed link, shows the board, and live events: over the subscription, and caught up after a cut connection', async () => {
    const link = await signInLink(owner);
    expect(link).toMatch(new RegExp(`^${server.baseUrl}/ops/sign-in#token=[A-Za-z0-9_-]{43}$`));
    const { context, page, failures, cut, restore } = await signedInPage(link);
    await page.getByRole('heading', { name: /Harbor Car Rentals/ }).waitFor();
    expect(page.url()).toBe(`${server.baseUrl}/ops`); // the token left the address bar
    expect(await page.textContent('header')).toContain('Olivia Owner · owner');

    // The cookie: HttpOnly, SameSite=Strict, never readable by the page's scripts.
    const cookie = await sessionCookie(context);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('ops_session');

    await page.getByTestId('live-status').getByText('Live').waitFor();
    // The screen's subscription is registered on the server (a moment after the connection opens).
    await subscriptionOpen();

    // An event caused over REST arrives over the subscription itself, not by a later catch-up.
    const api = restClient(server.baseUrl, business.test_secret_key);
    const vehicle = await createVehicle(api, { name: 'Mazda CX-5' });
    const first = await createBooking(api, vehicle.id);
    await page.locator(`[data-event-id][data-via="live"]`, { hasText: first.id }).waitFor({ timeout: 15_000 });
    // Its webhook fails (the endpoint answers 500): the failing-webhooks panel shows the endpoint.
    await page.getByTestId('webhooks').getByText(receiver.url).waitFor({ timeout: 15_000 });

    // The WebSocket is cut; an event happens while the screen is disconnected.
    await cut();
    await page.getByTestId('live-status').getByText('Reconnecting…').waitFor();
    const missed = await createBooking(api, vehicle.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await page.getByTestId('feed').getByText(missed.id).count()).toBe(0);

    // Back: it reconnects and catches up from the events query; each event shows once.
    restore();
    await page.getByTestId('live-status').getByText('Live').waitFor({ timeout: 15_000 });
    await feedEvent(page, missed.id).waitFor({ timeout: 15_000 });
    const ids = await page.locator('[data-event-id]').evaluateAll((items) => items.map((i) => i.getAttribute('data-event-id')));
    expect(new Set(ids).size).toBe(ids.length);
    // The board followed: both bookings are counted by state.
    await page.getByTestId('by-state').locator('li', { hasText: 'pending payment' }).filter({ hasText: /2$/ }).waitFor();

    // The owner may retry a failing webhook delivery: the write control is there.
    expect(await page.getByTestId('webhooks').getByRole('button', { name: 'Retry now' }).count()).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    await context.close();
  });

  it('the link works once', async () => {
    const link = await signInLink(owner);
    const first = await signedInPage(link);
    await first.page.getByRole('heading', { name: /Harbor Car Rentals/ }).waitFor();
    await first.context.close();

    const again = await signedInPage(link);
    await again.page.getByRole('heading', { name: 'Sign in to the ops screen' }).waitFor();
    expect(await again.page.getByRole('alert').textContent()).toContain('unknown, used or expired');
    expect(await again.context.cookies(server.baseUrl)).toEqual([]);
    await again.context.close();

    const token = new URL(link).hash.replace('#token=', '');
    const reuse = await fetch(`${server.baseUrl}/ops/session`, { method: 'POST', headers: { origin: server.baseUrl, 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(reuse.status).toBe(401);
    expect(((await reuse.json()) as any).error).toMatchObject({ code: 'sign_in_link_invalid', type: 'authentication_error' });
  });

  it('a link past its 15 minutes and a session past its expiry no longer work', async () => {
    const link = await signInLink(owner);
    const token = new URL(link).hash.replace('#token=', '');
    await sql(`UPDATE "OpsSignInLink" SET "expiresAt" = now() - interval '1 second' WHERE "tokenHash" = $1`, [sha256(token)]);
    const late = await signedInPage(link);
    await late.page.getByRole('heading', { name: 'Sign in to the ops screen' }).waitFor();
    await late.context.close();

    const { context, page } = await signedInPage(await signInLink(owner));
    await page.getByRole('heading', { name: /Harbor Car Rentals/ }).waitFor();
    const cookie = await sessionCookie(context);
    expect((await fetch(`${server.baseUrl}/v1/bookings`, { headers: { cookie: `ops_session=${cookie.value}` } })).status).toBe(200);
    await sql(`UPDATE "OpsSession" SET "expiresAt" = now() - interval '1 second' WHERE "tokenHash" = $1`, [sha256(cookie.value)]);
    const expired = await fetch(`${server.baseUrl}/v1/bookings`, { headers: { cookie: `ops_session=${cookie.value}` } });
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as any).error.code).toBe('session_required');
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the ops screen' }).waitFor();
    await context.close();
  });

  it('a request with the cookie goes through the API as the member; a state-changing one needs the CSRF token and this origin', async () => {
    const { context, page } = await signedInPage(await signInLink(owner));
    await page.getByRole('heading', { name: /Harbor Car Rentals/ }).waitFor();
    const cookie = `ops_session=${(await sessionCookie(context)).value}`;
    const csrf = ((await (await fetch(`${server.baseUrl}/ops/session`, { headers: { cookie } })).json()) as any).csrf_token as string;
    const origin = server.baseUrl;
    const mutation = JSON.stringify({ query: 'mutation { createVehicle(input: { name: "Kia Niro", dailyRateCents: 5500 }) { id } }' });
    const post = (headers: Record<string, string>) => fetch(`${server.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, ...headers }, body: mutation });

    // Reads: GET /v1 with the cookie takes the pipeline (rate limit headers and all), as the member.
    const read = await fetch(`${server.baseUrl}/v1/bookings`, { headers: { cookie } });
    expect(read.status).toBe(200);
    expect(read.headers.get('ratelimit-limit')).not.toBeNull();

    const missing = await post({ origin });
    expect(missing.status).toBe(403);
    expect(((await missing.json()) as any).errors[0].extensions).toMatchObject({ code: 'csrf_token_invalid', type: 'authorization_error' });
    // Over REST, the same refusal in the envelope.
    const rest = await fetch(`${server.baseUrl}/v1/vehicles`, { method: 'POST', headers: { cookie, origin, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Kia Niro', daily_rate_cents: 5500 }) });
    expect(rest.status).toBe(403);
    expect(((await rest.json()) as any).error).toMatchObject({ type: 'authorization_error', code: 'csrf_token_invalid', request_id: expect.stringMatching(/^req_/) });
    const wrong = await post({ origin, 'x-csrf-token': 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    const elsewhere = await post({ origin: 'http://127.0.0.1:1', 'x-csrf-token': csrf });
    expect(elsewhere.status).toBe(403);
    expect(((await elsewhere.json()) as any).errors[0].extensions.code).toBe('origin_not_allowed');
    // Another origin may not even read with the cookie (CORS would hand it the answer).
    const corsRead = await fetch(`${server.baseUrl}/v1/bookings`, { headers: { cookie, origin: 'http://127.0.0.1:1' } });
    expect(corsRead.status).toBe(403);

    const made = await post({ origin, 'x-csrf-token': csrf });
    expect(made.status).toBe(200);
    expect(((await made.json()) as any).data.createVehicle.id).toMatch(/^veh_/);

    // The WebSocket: refused from another origin, or without the CSRF token.
    const closeOf = (headers: Record<string, string>, csrfToken?: string) => new Promise<{ code: number; reason: string }>((resolve) => {
      const ws = new WebSocket(`${server.baseUrl.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { headers: { cookie, ...headers } });
      ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: csrfToken ? { csrfToken } : {} })));
      ws.on('message', (data) => {
        if (JSON.parse(String(data)).type === 'connection_ack') ws.close(1000, 'ack');
      });
      ws.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
    });
    expect(await closeOf({ origin: 'http://127.0.0.1:1' }, csrf)).toEqual({ code: 4403, reason: 'origin_not_allowed' });
    expect(await closeOf({ origin })).toEqual({ code: 4403, reason: 'csrf_token_invalid' });
    expect(await closeOf({ origin }, csrf)).toEqual({ code: 1000, reason: 'ack' });

    // Signing out ends the session at once (and needs the CSRF token too).
    expect((await fetch(`${server.baseUrl}/ops/session`, { method: 'DELETE', headers: { cookie, origin } })).status).toBe(403);
    const out = await fetch(`${server.baseUrl}/ops/session`, { method: 'DELETE', headers: { cookie, origin, 'x-csrf-token': csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^ops_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/);
    expect((await fetch(`${server.baseUrl}/v1/bookings`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${server.baseUrl}/ops/session`, { headers: { cookie } })).status).toBe(401);
    await context.close();
  });

  it('a viewer sees the board but no write control, and may not write', async () => {
    const { context, page, failures } = await signedInPage(await signInLink(viewer));
    await page.getByRole('heading', { name: /Harbor Car Rentals/ }).waitFor();
    expect(await page.textContent('header')).toContain('Victor Viewer · viewer');
    await page.getByTestId('webhooks').getByText(receiver.url).waitFor({ timeout: 15_000 });
    await page.getByTestId('feed').locator('[data-event-id]').first().waitFor();
    expect(await page.locator('button.write').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Retry now' }).count()).toBe(0);
    expect(await page.getByText('No access').count()).toBe(0);

    const cookie = `ops_session=${(await sessionCookie(context)).value}`;
    const csrf = ((await (await fetch(`${server.baseUrl}/ops/session`, { headers: { cookie } })).json()) as any).csrf_token as string;
    const write = await fetch(`${server.baseUrl}/v1/vehicles`, { method: 'POST', headers: { cookie, origin: server.baseUrl, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Nope', daily_rate_cents: 100 }) });
    expect(write.status).toBe(403);
    expect(((await write.json()) as any).error.code).toBe('permission_denied');
    expect(failures).toEqual([]);
    await context.close();
  });

  it('a section the role may not read shows "no access" (an agent and the revenue report), the rest of the board works', async () => {
    const { context, page, failures } = await signedInPage(await signInLink(agent));
    await page.getByRole('heading', { name: /Harbor Car Rentals/ }).waitFor();
    await page.getByTestId('money').getByText('No access').waitFor();
    await page.getByTestId('webhooks').getByText(receiver.url).waitFor({ timeout: 15_000 });
    expect(await page.getByText('No access').count()).toBe(1);
    expect(failures).toEqual([]);
    await context.close();
  });

  it('accepting an invitation answers a sign-in link for the new member', async () => {
    const api = restClient(server.baseUrl, business.test_secret_key);
    const invited = await api.post('/v1/team/invitations', { email: 'nia@harbor.example', role: 'agent' });
    expect(invited.status).toBe(201);
    const accepted = await restClient(server.baseUrl, null).post(invited.body.accept_url.slice(server.baseUrl.length), { name: 'Nia Newcomer' });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ object: 'team_member', name: 'Nia Newcomer', ops_sign_in_url: expect.stringMatching(new RegExp(`^${server.baseUrl}/ops/sign-in#token=[A-Za-z0-9_-]{43}$`)) });
    // The link is in that answer only, never in an event.
    const token = new URL(accepted.body.ops_sign_in_url).hash.replace('#token=', '');
    expect(JSON.stringify((await api.get('/v1/events?limit=100')).body)).not.toContain(token);

    const { context, page, failures } = await signedInPage(accepted.body.ops_sign_in_url);
    await page.getByRole('heading', { name: /Harbor Car Rentals/ }).waitFor();
    expect(await page.textContent('header')).toContain('Nia Newcomer · agent');
    expect(failures).toEqual([]);
    await context.close();
  });
});
