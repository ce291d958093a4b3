import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import * as oauth from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOps } from '../scripts/build-ops.mjs';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { sweepExpiredOAuthRows } from '../src/oauth/adapter.ts';
import { createSignInLink, redeemSignInLink, SESSION_COOKIE } from '../src/ops/sessions.ts';
import { createApiKey } from '../src/platform/api-keys.ts';
import { addTeamMember } from '../src/platform/team-members.ts';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { launchBrowser, type TestBrowser } from './support/browser.ts';
import { spawnServer } from './support/processes.ts';
import { appAccessToken } from './support/app-token.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';
import { graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';

/*
 * OAuth apps end to end: a platform registers an app with its secret key; a rental business's
 * owner or admin connects it on the consent page (Chromium, signed in to the ops screen); the
 * third-party side is openid-client, a certified OAuth client library, never hand-written
 * requests: the code flow with PKCE, token use on REST, GraphQL, graphql-ws and SSE, scope refusal, code reuse,
 * a wrong verifier, a wrong secret, refresh rotation and reuse detection, deny, a viewer who
 * cannot approve, RFC 7009 revocation, disconnection by the business, and tenancy.
 */

let n = 0;

/** The app's redirect URI: a loopback server of the test that hands each arrival to the flow whose state it carries. */
async function callbackReceiver() {
  const waiting = new Map<string, (url: string) => void>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    waiting.get(url.searchParams.get('state') ?? '')?.(url.href);
    res.end('back at the app');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    arrival: (state: string) => new Promise<string>((resolve) => waiting.set(state, resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('OAuth apps on postgres', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let platform: ReturnType<typeof restClient>;
  let business: ReturnType<typeof restClient>;
  let app: { id: string; client_id: string; client_secret: string };
  let vehicleId: string;
  let receiver: Awaited<ReturnType<typeof callbackReceiver>>;
  let CALLBACK: string;

  beforeAll(async () => {
    receiver = await callbackReceiver();
    CALLBACK = receiver.url;
    t = await startTestApp('postgres');
    browser = await launchBrowser();
    platform = restClient(t.baseUrl, t.business.test_secret_key);
    business = restClient(t.baseUrl, t.other.test_secret_key);
    const created = await platform.post('/v1/apps', { name: 'Fleet Telematics', redirect_uris: [CALLBACK], scopes: ['vehicles:read', 'bookings:read', 'customers:write'] });
    expect(created.status).toBe(201);
    app = created.body;
    vehicleId = (await createVehicle(business)).id;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  /** openid-client's view of the authorization server, from its RFC 8414 metadata. */
  const clientConfig = (secret = app.client_secret, auth: 'basic' | 'post' = 'basic') =>
    oauth.discovery(new URL(t.baseUrl), app.client_id, undefined, auth === 'basic' ? oauth.ClientSecretBasic(secret) : oauth.ClientSecretPost(secret), {
      algorithm: 'oauth2',
      execute: [oauth.allowInsecureRequests],
    });

  /** A browser signed in to the ops screen as a new member of the connecting business. */
  async function signedIn(role: 'owner' | 'admin' | 'viewer', livemode = false): Promise<{ context: BrowserContext; page: Page; memberId: string }> {
    const member = (await addTeamMember(t.db.prisma, { businessId: t.other.business_id, email: `m${++n}@example.com`, role }))!;
    const link = await createSignInLink(t.db.prisma, { businessId: t.other.business_id, memberId: member.id, livemode });
    const session = await redeemSignInLink(t.db.prisma, link.token, new Date());
    const context = await browser.browser.newContext();
    await context.addCookies([{ name: SESSION_COOKIE, value: session.token, url: t.baseUrl, httpOnly: true, sameSite: 'Strict' }]);
    const page = await context.newPage();
    return { context, page, memberId: member.id };
  }

  /** Start an authorization in the browser: the consent page, and what the client keeps. */
  async function authorize(page: Page, scope = 'vehicles:read bookings:read') {
    const config = await clientConfig();
    const verifier = oauth.randomPKCECodeVerifier();
    const state = oauth.randomState();
    const url = oauth.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope, state, code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const callback = receiver.arrival(state);
    await page.goto(url.href);
    return { config, verifier, state, callback };
  }

  /** The whole flow: consent approved in the browser, the code exchanged by openid-client. */
  async function connect(scope?: string) {
    const { context, page } = await signedIn('admin');
    const flow = await authorize(page, scope);
    await page.getByRole('button', { name: 'Approve' }).click();
    const callbackUrl = new URL(await flow.callback);
    const tokens = await oauth.authorizationCodeGrant(flow.config, callbackUrl, { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
    await context.close();
    return { ...flow, tokens, callbackUrl };
  }

  const bearer = (token: string) => restClient(t.baseUrl, token);

  it('registers an app: client_secret in that answer only, redirect URIs checked, scopes are permissions', async () => {
    expect(app).toMatchObject({ object: 'app', livemode: false, name: 'Fleet Telematics', redirect_uris: [CALLBACK], scopes: ['vehicles:read', 'bookings:read', 'customers:write'] });
    expect(app.id).toMatch(/^app_/);
    expect(app.client_secret).toMatch(/^svc_test_cs_/);
    const read = await platform.get(`/v1/apps/${app.id}`);
    expect(read.body).toMatchObject({ id: app.id, client_id: app.client_id, client_secret: null });
    expect((await platform.get('/v1/apps')).body.data.map((a: { id: string }) => a.id)).toContain(app.id);
    // The secret is stored only as its hash.
    const row = await t.db.prisma.app.findUniqueOrThrow({ where: { id: app.id } });
    expect(JSON.stringify(row)).not.toContain(app.client_secret);

    const http = await platform.post('/v1/apps', { name: 'X', redirect_uris: ['http://example.com/cb'], scopes: ['vehicles:read'] });
    expect(http.status).toBe(422);
    expect(http.body.error).toMatchObject({ code: 'redirect_uri_not_allowed', param: 'redirect_uris' });
    const live = restClient(t.baseUrl, t.business.live_secret_key);
    const loopbackLive = await live.post('/v1/apps', { name: 'X', redirect_uris: [CALLBACK], scopes: ['vehicles:read'] });
    expect(loopbackLive.body.error.code).toBe('redirect_uri_not_allowed');
    const scope = await platform.post('/v1/apps', { name: 'X', redirect_uris: ['https://x.example.com/cb'], scopes: ['vehicles:fly'] });
    expect(scope.status).toBe(422);
    expect(scope.body.error.param).toBe('scopes');
    // Another business never sees the app.
    expect((await business.get(`/v1/apps/${app.id}`)).status).toBe(404);
  });

  it('publishes RFC 8414 metadata: the endpoints, the permission names as scopes, S256 only', async () => {
    const res = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const meta = await res.json();
    expect(meta).toMatchObject({
      issuer: t.baseUrl,
      authorization_endpoint: `${t.baseUrl}/oauth/authorize`,
      token_endpoint: `${t.baseUrl}/oauth/token`,
      revocation_endpoint: `${t.baseUrl}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(meta.scopes_supported).toContain('bookings:read');
    expect(meta.scopes_supported).not.toContain('openid');
    expect(meta.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
  });

  it('runs the code flow with PKCE: the consent page names the app and each scope; the token acts on the business with exactly those scopes', async () => {
    const { context, page } = await signedIn('owner');
    const flow = await authorize(page);
    expect(await page.locator('h1').textContent()).toMatch(/Connect Fleet Telematics to Other Rentals/);
    const scopes = await page.locator('#scopes li').allTextContents();
    expect(scopes).toEqual(['See vehicles and their pricing vehicles:read', 'See bookings bookings:read']);
    const response = await page.request.get(page.url());
    expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.getByRole('button', { name: 'Approve' }).click();
    const callbackUrl = new URL(await flow.callback);
    expect(callbackUrl.searchParams.get('state')).toBe(flow.state);
    const tokens = await oauth.authorizationCodeGrant(flow.config, callbackUrl, { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
    await context.close();
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'vehicles:read bookings:read', business_id: t.other.business_id, livemode: false });
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const api = bearer(tokens.access_token);
    const vehicles = await api.get('/v1/vehicles');
    expect(vehicles.status).toBe(200);
    expect(vehicles.body.data.map((v: { id: string }) => v.id)).toContain(vehicleId);
    const refused = await api.get('/v1/customers');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'authorization_error', code: 'permission_denied' });
    const gql = await graphqlClient(t.baseUrl, tokens.access_token)('{ vehicles(first: 5) { edges { node { id } } } }');
    expect(gql.errors).toBeUndefined();
    expect(JSON.stringify(gql.data)).toContain(vehicleId);

    // Tenancy: the platform's own vehicles are another business's, and the live environment is another.
    const own = await createVehicle(platform);
    expect((await api.get(`/v1/vehicles/${own.id}`)).status).toBe(404);

    // The business sees the connection and the event.
    const connected = await business.get('/v1/connected_apps');
    expect(connected.body.data[0]).toMatchObject({ object: 'connected_app', app_id: app.id, app_name: 'Fleet Telematics', scopes: ['vehicles:read', 'bookings:read'] });
    const events = await business.get('/v1/events?type=app.authorized&limit=1');
    expect(events.body.data[0].data.object).toMatchObject({ app_id: app.id });
  });

  it('refuses a scope the app did not register (invalid_scope), a wrong verifier, a wrong secret', async () => {
    const { context, page } = await signedIn('admin');
    const flow = await authorize(page, 'vehicles:read payments:write');
    const url = new URL(await flow.callback);
    expect(url.searchParams.get('error')).toBe('invalid_scope');
    await context.close();

    const wrongVerifier = await (async () => {
      const { context: c, page: p } = await signedIn('admin');
      const f = await authorize(p);
      await p.getByRole('button', { name: 'Approve' }).click();
      const cb = new URL(await f.callback);
      await c.close();
      return oauth.authorizationCodeGrant(f.config, cb, { pkceCodeVerifier: oauth.randomPKCECodeVerifier(), expectedState: f.state }).catch((e: unknown) => e);
    })();
    expect(wrongVerifier).toMatchObject({ error: 'invalid_grant' });

    const { context: c2, page: p2 } = await signedIn('admin');
    const f2 = await authorize(p2);
    await p2.getByRole('button', { name: 'Approve' }).click();
    const cb2 = new URL(await f2.callback);
    await c2.close();
    const wrongSecret = await oauth.authorizationCodeGrant(await clientConfig('svc_test_cs_wrong'), cb2, { pkceCodeVerifier: f2.verifier, expectedState: f2.state }).catch((e: unknown) => e);
    // RFC 6749 §5.2: 401 with the challenge for the scheme the client used (Basic).
    expect(wrongSecret).toMatchObject({ status: 401, cause: [{ scheme: 'basic', parameters: { error: 'invalid_client' } }] });
    // client_secret_post works too.
    const viaPost = await oauth.authorizationCodeGrant(await clientConfig(app.client_secret, 'post'), cb2, { pkceCodeVerifier: f2.verifier, expectedState: f2.state });
    expect(viaPost.access_token).toEqual(expect.any(String));
  });

  it('a code works once: its second use is invalid_grant and revokes what the first issued', async () => {
    const first = await connect();
    const again = await oauth.authorizationCodeGrant(first.config, first.callbackUrl, { pkceCodeVerifier: first.verifier, expectedState: first.state }).catch((e: unknown) => e);
    expect(again).toMatchObject({ error: 'invalid_grant' });
    const res = await bearer(first.tokens.access_token).get('/v1/vehicles');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'token_revoked' });
  });

  it('rotates refresh tokens; a used one revokes the whole grant', async () => {
    const { config, tokens } = await connect();
    const rotated = await oauth.refreshTokenGrant(config, tokens.refresh_token!);
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(rotated).toMatchObject({ business_id: t.other.business_id, livemode: false, scope: 'vehicles:read bookings:read' });
    expect((await bearer(rotated.access_token).get('/v1/vehicles')).status).toBe(200);
    const reused = await oauth.refreshTokenGrant(config, tokens.refresh_token!).catch((e: unknown) => e);
    expect(reused).toMatchObject({ error: 'invalid_grant' });
    const after = await oauth.refreshTokenGrant(config, rotated.refresh_token!).catch((e: unknown) => e);
    expect(after).toMatchObject({ error: 'invalid_grant' });
    expect((await bearer(rotated.access_token).get('/v1/vehicles')).body.error.code).toBe('token_revoked');
  });

  it('deny answers access_denied at the redirect URI; a viewer cannot approve', async () => {
    const { context, page } = await signedIn('admin');
    const flow = await authorize(page);
    await page.getByRole('button', { name: 'Deny' }).click();
    const url = new URL(await flow.callback);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe(flow.state);
    await context.close();

    const viewer = await signedIn('viewer');
    await authorize(viewer.page);
    await viewer.page.getByRole('button', { name: 'Approve' }).click();
    await viewer.page.waitForFunction(() => document.getElementById('error')?.textContent !== '');
    expect(await viewer.page.locator('#error').textContent()).toMatch(/Only an owner or admin/);
    await viewer.context.close();
  });

  it('the consent page needs the ops session, and its decision the session\'s CSRF token from this origin', async () => {
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    await authorize(page);
    expect(await page.locator('h1').textContent()).toContain('Sign in to connect Fleet Telematics');
    const forged = await fetch(page.url(), { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, body: '{"decision":"approve"}' });
    expect(forged.status).toBe(403);
    await context.close();

    // A consent page opened from a link, in a browser that did not start the authorization, decides nothing.
    const starter = await signedIn('admin');
    await authorize(starter.page);
    const consentUrl = starter.page.url();
    await starter.context.close();
    const victim = await signedIn('owner');
    const opened = await victim.page.goto(consentUrl);
    expect(opened?.status()).toBe(400);
    expect(await opened?.json()).toMatchObject({ error: { type: 'invalid_request', code: 'authorization_other_browser' } });
    await victim.context.close();
  });

  it('RFC 7009 revocation stops an access token at once', async () => {
    const { config, tokens } = await connect();
    await oauth.tokenRevocation(config, tokens.access_token);
    const res = await bearer(tokens.access_token).get('/v1/vehicles');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('token_revoked');
  });

  it('a business disconnects an app: its tokens stop at once, the refresh token too, app.deauthorized', async () => {
    const { config, tokens } = await connect();
    const connections = (await business.get('/v1/connected_apps')).body.data as { id: string }[];
    const connection = (await t.db.prisma.connectedApp.findFirstOrThrow({ where: { businessId: t.other.business_id, revokedAt: null }, orderBy: { id: 'desc' } })).id;
    expect(connections.map((c) => c.id)).toContain(connection);
    expect((await bearer(tokens.access_token).get('/v1/vehicles')).status).toBe(200);
    const ended = await business.call('DELETE', `/v1/connected_apps/${connection}`);
    expect(ended.status).toBe(200);
    expect((await bearer(tokens.access_token).get('/v1/vehicles')).body.error.code).toBe('token_revoked');
    expect(await oauth.refreshTokenGrant(config, tokens.refresh_token!).catch((e: unknown) => e)).toMatchObject({ error: 'invalid_grant' });
    expect((await business.get('/v1/connected_apps')).body.data.map((c: { id: string }) => c.id)).not.toContain(connection);
    const events = await business.get('/v1/events?type=app.deauthorized&limit=1');
    expect(events.body.data[0].data.object).toMatchObject({ id: connection, app_id: app.id });
    // The platform cannot end another business's connection.
    expect((await platform.call('DELETE', `/v1/connected_apps/${connection}`)).status).toBe(404);
  });

  it('a token never reaches the other environment of the business', async () => {
    const { tokens } = await connect();
    const liveKey = await createApiKey(t.db.prisma, { businessId: t.other.business_id, livemode: true, kind: 'secret' });
    const liveVehicle = await createVehicle(restClient(t.baseUrl, liveKey.key));
    expect((await bearer(tokens.access_token).get(`/v1/vehicles/${liveVehicle.id}`)).status).toBe(404);
  });

  it('the token works over graphql-ws too, and a write is audited under the app', async () => {
    const { tokens } = await connect('vehicles:read customers:write');
    const ws = createClient({ url: `${t.baseUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${tokens.access_token}` }, retryAttempts: 0 });
    const result = await new Promise<Record<string, unknown>>((resolve, reject) => {
      ws.subscribe({ query: '{ vehicles(first: 5) { edges { node { id } } } }' }, { next: (r) => resolve(r as Record<string, unknown>), error: reject, complete: () => {} });
    });
    await ws.dispose();
    expect(result.errors).toBeUndefined();
    expect(JSON.stringify(result.data)).toContain(vehicleId);

    const created = await bearer(tokens.access_token).post('/v1/customers', { name: 'Ada Lovelace', email: `ada${++n}@example.com` });
    expect(created.status).toBe(201);
    const audit = await t.db.prisma.auditLog.findFirstOrThrow({ where: { requestId: created.headers.get('request-id')! } });
    expect(audit).toMatchObject({ businessId: t.other.business_id, livemode: false, appId: app.id, memberId: null, operation: 'createCustomer' });
    expect(audit.apiKeyId).toMatch(/^capp_/);
  });

  it('after a disconnection, the token is dead in a second API process within 5 seconds', async () => {
    const { tokens } = await connect();
    const second = await spawnServer({ DATABASE_URL: String(t.db.pool!.options.connectionString) });
    try {
      const there = () => fetch(`${second.baseUrl}/v1/vehicles`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect((await there()).status).toBe(200); // now cached there
      const connection = (await t.db.prisma.connectedApp.findFirstOrThrow({ where: { businessId: t.other.business_id, revokedAt: null }, orderBy: { id: 'desc' } })).id;
      const ended = Date.now();
      expect((await business.call('DELETE', `/v1/connected_apps/${connection}`)).status).toBe(200);
      let answer = await there();
      while (answer.status === 200 && Date.now() - ended < 7_000) {
        await new Promise((r) => setTimeout(r, 200));
        answer = await there();
      }
      expect(answer.status).toBe(401);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('token_revoked');
      expect(Date.now() - ended).toBeLessThanOrEqual(5_500);
    } finally {
      await second.stop();
    }
  }, 90_000);

  it('an expired access token answers token_expired; an unsupported grant type is unsupported_grant_type', async () => {
    const { config, tokens } = await connect();
    // An hour later, as far as the token's row says.
    const row = await t.db.prisma.oAuthStore.findUniqueOrThrow({ where: { kind_id: { kind: 'AccessToken', id: tokens.access_token } } });
    const past = Math.floor(Date.now() / 1000) - 60;
    await t.db.prisma.oAuthStore.update({ where: { kind_id: { kind: 'AccessToken', id: tokens.access_token } }, data: { payload: { ...(row.payload as object), exp: past }, expiresAt: new Date(past * 1000) } });
    const res = await bearer(tokens.access_token).get('/v1/bookings');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'token_expired' });
    const password = await oauth.genericGrantRequest(config, 'password', { username: 'a', password: 'b' }).catch((e: unknown) => e);
    expect(password).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('the token works over SSE too, with exactly its scopes: a subscription needing events:read is refused', async () => {
    const { tokens } = await connect();
    const sse = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await fetch(`${t.baseUrl}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query, variables }),
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const text = await res.text(); // the stream ends after the result
      return text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)) as { data: unknown; errors?: { extensions: Record<string, unknown> }[] });
    };
    const [read] = await sse('{ vehicles(first: 5) { edges { node { id } } } }');
    expect(read.errors).toBeUndefined();
    expect(JSON.stringify(read.data)).toContain(vehicleId);
    const booking = await createBooking(business, (await createVehicle(business)).id);
    const [refused] = await sse('subscription($id: ID!) { bookingEvents(bookingId: $id) { id type } }', { id: booking.id });
    expect(refused.errors?.[0].extensions).toMatchObject({ type: 'authorization_error', code: 'permission_denied', permission: 'events:read' });
  });

  it('the maintenance sweep forgets authorization-server rows a day past their expiry, and keeps the rest', async () => {
    const now = new Date();
    await t.db.prisma.oAuthStore.createMany({
      data: [
        { kind: 'AccessToken', id: `old-${++n}`, payload: {}, expiresAt: new Date(now.getTime() - 2 * 86_400_000), revokedAt: now },
        { kind: 'AccessToken', id: `recent-${n}`, payload: {}, expiresAt: new Date(now.getTime() - 3_600_000) },
      ],
    });
    expect(await sweepExpiredOAuthRows(t.db.prisma, now)).toBeGreaterThanOrEqual(1);
    const left = await t.db.prisma.oAuthStore.findMany({ where: { id: { in: [`old-${n}`, `recent-${n}`] } } });
    expect(left.map((r) => r.id)).toEqual([`recent-${n}`]);
  });

  it('two uses of one code at once: exactly one gets tokens', async () => {
    const { context, page } = await signedIn('admin');
    const flow = await authorize(page);
    await page.getByRole('button', { name: 'Approve' }).click();
    const callbackUrl = new URL(await flow.callback);
    await context.close();
    const exchange = () => oauth.authorizationCodeGrant(flow.config, callbackUrl, { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
    const outcomes = await Promise.allSettled([exchange(), exchange(), exchange()]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ error: 'invalid_grant' });
  });

  it('the ops screen lists the connected apps, and an admin disconnects one there', async () => {
    await buildOps();
    const { tokens } = await connect();
    const connection = (await t.db.prisma.connectedApp.findFirstOrThrow({ where: { businessId: t.other.business_id, revokedAt: null }, orderBy: { id: 'desc' } })).id;
    const { context, page } = await signedIn('admin');
    await page.goto(`${t.baseUrl}/ops`);
    const row = page.locator(`[data-app-connection="${connection}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('Fleet Telematics');
    expect(await row.textContent()).toContain('vehicles:read, bookings:read');
    await row.getByRole('button', { name: 'Disconnect' }).click();
    await row.waitFor({ state: 'detached' });
    await context.close();
    expect((await bearer(tokens.access_token).get('/v1/vehicles')).body.error.code).toBe('token_revoked');
  }, 120_000);

  it('the admin CLI lists a business\'s connected apps; deleting the app ends every connection\'s tokens', async () => {
    const { tokens } = await connect();
    const listed = (await runAdminCommand(t.db.prisma, ['app', 'connections'], { business: t.other.business_id })) as { app: string; state: string; scopes: string }[];
    expect(listed).toContainEqual(expect.objectContaining({ app: app.id, app_name: 'Fleet Telematics', mode: 'test', state: 'connected', scopes: 'vehicles:read,bookings:read' }));
    const other = await platform.post('/v1/apps', { name: 'Second App', redirect_uris: ['https://second.example.com/cb'], scopes: ['vehicles:read'] });
    expect((await platform.call('DELETE', `/v1/apps/${other.body.id}`)).body).toMatchObject({ id: other.body.id, object: 'app' });
    expect((await platform.get(`/v1/apps/${other.body.id}`)).status).toBe(404);
    expect((await bearer(tokens.access_token).get('/v1/vehicles')).status).toBe(200);
    expect((await platform.call('DELETE', `/v1/apps/${app.id}`)).status).toBe(200);
    expect((await bearer(tokens.access_token).get('/v1/vehicles')).body.error.code).toBe('token_revoked');
  });
});

describe('OAuth apps: rate limits', () => {
  let t: TestApp;
  afterAll(async () => t?.close());

  it('count per app and business: one connection over its limit leaves another app and the business\'s own key alone', async () => {
    t = await startTestApp('pglite', { rateLimitTest: 3 });
    const scopes = ['vehicles:read'];
    const first = restClient(t.baseUrl, await appAccessToken(t.db, { platformBusinessId: t.other.business_id, businessId: t.business.business_id, scopes }));
    const second = restClient(t.baseUrl, await appAccessToken(t.db, { platformBusinessId: t.other.business_id, businessId: t.business.business_id, scopes }));
    // Eight at once against a limit of three a second: some are refused, whatever second they fall in.
    const answers = await Promise.all(Array.from({ length: 8 }, () => first.get('/v1/vehicles')));
    const limited = answers.find((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(3);
    expect(limited?.body.error.code).toBe('rate_limited');
    expect((await second.get('/v1/vehicles')).status).toBe(200);
    expect((await restClient(t.baseUrl, t.business.test_secret_key).get('/v1/vehicles')).status).toBe(200);
  });
});
