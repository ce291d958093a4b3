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
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { startReceiver } from './support/receiver.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { Webhook } from 'standardwebhooks';

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

type OAuthApp = { id: string; client_id: string; client_secret: string };

const headersOf = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));

describe.each(ENGINES)('OAuth apps on %s', (engine) => {
  let t: TestApp;
  let browser: TestBrowser;
  let platform: ReturnType<typeof restClient>;
  let business: ReturnType<typeof restClient>;
  let app: OAuthApp;
  let vehicleId: string;
  let receiver: Awaited<ReturnType<typeof callbackReceiver>>;
  let CALLBACK: string;

  beforeAll(async () => {
    receiver = await callbackReceiver();
    CALLBACK = receiver.url;
    t = await startTestApp(engine, { webhookPollMs: 50 });
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
  const clientConfig = (secret = app.client_secret, auth: 'basic' | 'post' = 'basic', forApp: OAuthApp = app) =>
    oauth.discovery(new URL(t.baseUrl), forApp.client_id, undefined, auth === 'basic' ? oauth.ClientSecretBasic(secret) : oauth.ClientSecretPost(secret), {
      algorithm: 'oauth2',
      execute: [oauth.allowInsecureRequests],
    });

  /** A browser signed in to the ops screen as a new member of the connecting business. */
  async function signedIn(role: 'owner' | 'admin' | 'viewer', livemode = false, businessId = t.other.business_id): Promise<{ context: BrowserContext; page: Page; memberId: string }> {
    const member = (await addTeamMember(t.db.prisma, { businessId, email: `m${++n}@example.com`, role }))!;
    const link = await createSignInLink(t.db.prisma, { businessId, memberId: member.id, livemode });
    const session = await redeemSignInLink(t.db.prisma, link.token, new Date());
    const context = await browser.browser.newContext();
    await context.addCookies([{ name: SESSION_COOKIE, value: session.token, url: t.baseUrl, httpOnly: true, sameSite: 'Strict' }]);
    const page = await context.newPage();
    return { context, page, memberId: member.id };
  }

  /** Start an authorization in the browser: the consent page, and what the client keeps. */
  async function authorize(page: Page, scope = 'vehicles:read bookings:read', forApp: OAuthApp = app) {
    const config = await clientConfig(forApp.client_secret, 'basic', forApp);
    const verifier = oauth.randomPKCECodeVerifier();
    const state = oauth.randomState();
    const url = oauth.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope, state, code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const callback = receiver.arrival(state);
    await page.goto(url.href);
    return { config, verifier, state, callback };
  }

  /** The whole flow: consent approved in the browser, the code exchanged by openid-client. */
  async function connect(scope?: string, forApp: OAuthApp = app, businessId = t.other.business_id) {
    const { context, page } = await signedIn('admin', false, businessId);
    const flow = await authorize(page, scope, forApp);
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

  // A second API process needs PostgreSQL (an embedded database belongs to one process).
  it.runIf(engine === 'postgres')('after a disconnection, the token is dead in a second API process within 5 seconds', async () => {
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

  it('approving the app again updates the one connection: same id, the new scopes, tokens already issued narrowed at once', async () => {
    const first = await connect('vehicles:read bookings:read');
    const mine = async () => ((await business.get('/v1/connected_apps?limit=100')).body.data as { id: string; app_id: string; scopes: string[] }[]).filter((c) => c.app_id === app.id);
    const [before] = await mine();
    expect(await mine()).toHaveLength(1);
    expect(before.scopes).toEqual(['vehicles:read', 'bookings:read']);
    expect((await bearer(first.tokens.access_token).get('/v1/bookings')).status).toBe(200);

    const second = await connect('vehicles:read');
    expect(second.tokens.scope).toBe('vehicles:read');
    const after = await mine();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: before.id, scopes: ['vehicles:read'] });
    expect(await t.db.prisma.connectedApp.count({ where: { businessId: t.other.business_id, appId: app.id, revokedAt: null } })).toBe(1);
    // The first approval's token is narrowed to the new grant at once; both still read vehicles.
    const narrowed = await bearer(first.tokens.access_token).get('/v1/bookings');
    expect(narrowed.status).toBe(403);
    expect(narrowed.body.error).toMatchObject({ code: 'permission_denied' });
    expect((await bearer(first.tokens.access_token).get('/v1/vehicles')).status).toBe(200);
    expect((await bearer(second.tokens.access_token).get('/v1/vehicles')).status).toBe(200);
    // A refresh of the first approval's refresh token gets no more than the grant holds now.
    const refreshed = await oauth.refreshTokenGrant(first.config, first.tokens.refresh_token!);
    expect(refreshed.scope).toBe('vehicles:read');
    // Each approval is an app.authorized of the same connection, with its scopes.
    const events = (await business.get('/v1/events?type=app.authorized&limit=2')).body.data;
    expect(events.map((e: any) => [e.data.object.id, e.data.object.scopes])).toEqual([[before.id, ['vehicles:read']], [before.id, ['vehicles:read', 'bookings:read']]]);

    // Once disconnected, approving again starts a new connection.
    expect((await business.call('DELETE', `/v1/connected_apps/${before.id}`)).status).toBe(200);
    await connect();
    const renewed = await mine();
    expect(renewed).toHaveLength(1);
    expect(renewed[0].id).not.toBe(before.id);
  });

  it("app webhooks: an app's endpoint gets the events of every connected business with their business_id, signed, as far as each grant reads; a disconnected business stops", async () => {
    const receiver = await startReceiver();
    const third = await createBusiness(t.db.prisma, { name: 'Third Rentals' });
    const thirdApi = restClient(t.baseUrl, third.test_secret_key);
    try {
      const hooks = (await platform.post('/v1/apps', { name: 'Fleet Hooks', redirect_uris: [CALLBACK], scopes: ['vehicles:read', 'bookings:read', 'customers:read'] })).body as OAuthApp;
      const created = await platform.post(`/v1/apps/${hooks.id}/webhooks`, { url: receiver.url, enabled_events: ['*'], description: 'every connected business' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ object: 'webhook_endpoint', app_id: hooks.id, url: receiver.url, enabled_events: ['*'], enabled: true });
      expect(created.body.secret).toMatch(/^whsec_/);
      const endpointId = created.body.id as string;
      // Read back like any endpoint: the secret never again; listed under the app; another business never sees it.
      expect((await platform.get(`/v1/apps/${hooks.id}/webhooks/${endpointId}`)).body).toMatchObject({ id: endpointId, app_id: hooks.id, secret: null });
      expect((await platform.get(`/v1/apps/${hooks.id}/webhooks`)).body.data.map((e: { id: string }) => e.id)).toEqual([endpointId]);
      expect((await platform.get(`/v1/developers/webhooks/${endpointId}`)).body).toMatchObject({ id: endpointId, app_id: hooks.id });
      expect((await business.get(`/v1/apps/${hooks.id}/webhooks`)).status).toBe(404);
      expect((await business.get(`/v1/developers/webhooks/${endpointId}`)).status).toBe(404);
      const gql = await graphqlClient(t.baseUrl, t.business.test_secret_key)('query($app: ID!) { appWebhookEndpoints(appId: $app) { edges { node { id appId secret } } } }', { app: hooks.id });
      expect(gql.errors).toBeUndefined();
      expect(gql.data.appWebhookEndpoints.edges).toEqual([{ node: { id: endpointId, appId: hooks.id, secret: null } }]);

      // Two businesses connect the app: one grants bookings, the other vehicles only.
      await connect('vehicles:read bookings:read', hooks);
      await connect('vehicles:read', hooks, third.business_id);
      const forApp = (pred: (r: { json: any }) => boolean) => receiver.received.filter((r) => r.json && pred(r));
      await receiver.waitFor(() => forApp((r) => r.json.type === 'app.authorized').length >= 2);
      expect(forApp((r) => r.json.type === 'app.authorized').map((r) => r.json.business_id).sort()).toEqual([t.other.business_id, third.business_id].sort());

      const otherBooking = await createBooking(business, vehicleId);
      const customer = await business.post('/v1/customers', { name: 'Grace Hopper', email: `grace${++n}@example.com` });
      expect(customer.status).toBe(201);
      const thirdVehicle = await createVehicle(thirdApi);
      expect((await thirdApi.post(`/v1/vehicles/${thirdVehicle.id}`, { name: 'Renamed Corolla' })).status).toBe(200);
      const thirdBooking = await createBooking(thirdApi, thirdVehicle.id);
      const ownVehicle = await createVehicle(platform);
      const ownBooking = await createBooking(platform, ownVehicle.id);
      await receiver.waitFor(() => forApp((r) => r.json.data?.object?.id === otherBooking.id).length >= 1 && forApp((r) => r.json.data?.object?.id === thirdVehicle.id).length >= 1);

      // Every delivery names its business and verifies with the endpoint's secret.
      const verifier = new Webhook(created.body.secret);
      for (const r of receiver.received) {
        const payload = verifier.verify(r.body, headersOf(r.headers)) as { business_id: string };
        expect([t.other.business_id, third.business_id]).toContain(payload.business_id);
      }
      const booked = forApp((r) => r.json.type === 'booking.created' && r.json.data.object.id === otherBooking.id);
      expect(booked[0].json).toMatchObject({ object: 'event', business_id: t.other.business_id, livemode: false });
      // The event is the one the business's own events API shows.
      expect((await business.get(`/v1/events/${booked[0].json.id}`)).body).toEqual(booked[0].json);
      expect(forApp((r) => r.json.data?.object?.id === thirdVehicle.id).map((r) => [r.json.type, r.json.business_id])).toEqual([['vehicle.updated', third.business_id]]);

      // Scopes: the third business granted no bookings, nobody granted events of customers; the platform's own events never go to its app.
      await t.app.worker!.drain();
      const queued = await t.db.prisma.webhookMessage.findMany({ where: { endpointId }, include: { event: { select: { businessId: true, type: true, data: true } } } });
      expect(queued.some((m) => m.event.businessId === third.business_id && m.event.type === 'booking.created')).toBe(false);
      expect(JSON.stringify(queued.map((m) => m.event.data))).not.toContain(customer.body.id);
      expect(queued.some((m) => m.event.businessId === t.business.business_id)).toBe(false);
      expect(JSON.stringify(queued.map((m) => m.event.data))).not.toContain(thirdBooking.id);
      expect(JSON.stringify(queued.map((m) => m.event.data))).not.toContain(ownBooking.id);
      // The messages and their delivery log are the platform's.
      expect(queued.every((m) => m.businessId === t.business.business_id)).toBe(true);
      const log = await platform.get(`/v1/developers/webhooks/${endpointId}/deliveries?limit=100`);
      expect(log.body.data.map((d: { event_id: string }) => d.event_id)).toContain(booked[0].json.id);

      // The third business disconnects: the app hears it, then nothing more of that business.
      const [connection] = ((await thirdApi.get('/v1/connected_apps')).body.data as { id: string }[]);
      expect((await thirdApi.call('DELETE', `/v1/connected_apps/${connection.id}`)).status).toBe(200);
      await receiver.waitFor(() => forApp((r) => r.json.type === 'app.deauthorized' && r.json.business_id === third.business_id).length === 1);
      const gone = receiver.received.length;
      expect((await thirdApi.post(`/v1/vehicles/${thirdVehicle.id}`, { name: 'Renamed again' })).status).toBe(200);
      const late = (await thirdApi.get('/v1/events?type=vehicle.updated&limit=1')).body.data[0];
      expect(late.data.object).toMatchObject({ id: thirdVehicle.id, name: 'Renamed again' });
      const lastOther = await createBooking(business, vehicleId);
      await receiver.waitFor(() => forApp((r) => r.json.data?.object?.id === lastOther.id).length >= 1);
      await t.app.worker!.drain();
      expect(receiver.received.slice(gone).filter((r) => r.json.business_id === third.business_id)).toEqual([]);
      expect(await t.db.prisma.webhookMessage.count({ where: { endpointId, eventId: late.id } })).toBe(0);

      // Deleting the endpoint stops it too.
      const deleted = await platform.call('DELETE', `/v1/apps/${hooks.id}/webhooks/${endpointId}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ id: endpointId, app_id: hooks.id, secret: null });
      expect((await platform.get(`/v1/apps/${hooks.id}/webhooks/${endpointId}`)).status).toBe(404);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it("app webhooks refuse what business endpoints refuse: private and non-https targets in live mode, over REST and GraphQL", async () => {
    const liveKey = t.business.live_secret_key;
    const live = restClient(t.baseUrl, liveKey);
    const liveApp = (await live.post('/v1/apps', { name: 'Live Hooks', redirect_uris: ['https://hooks.example.com/cb'], scopes: ['bookings:read'] })).body as OAuthApp;
    for (const url of ['https://127.0.0.1/hooks', 'https://169.254.169.254/latest/meta-data', 'https://10.1.2.3/hooks', 'http://example.com/hooks']) {
      const refused = await live.post(`/v1/apps/${liveApp.id}/webhooks`, { url, enabled_events: ['*'] });
      expect(refused.status, url).toBe(422);
      expect(refused.body.error).toMatchObject({ type: 'validation_error', code: 'url_not_allowed', param: 'url' });
    }
    const gql = await graphqlClient(t.baseUrl, liveKey)('mutation($app: ID!, $input: CreateWebhookEndpointInput!) { createAppWebhookEndpoint(appId: $app, input: $input) { id } }', {
      app: liveApp.id,
      input: { url: 'https://192.168.0.10/hooks', enabledEvents: ['*'] },
    });
    expect(gql.errors?.[0].extensions).toMatchObject({ type: 'validation_error', code: 'url_not_allowed' });
    expect(await t.db.prisma.webhookEndpoint.count({ where: { appId: liveApp.id } })).toBe(0);
    // The test-mode app of the platform is not the live key's: 404, like any other environment's row.
    expect((await live.post(`/v1/apps/${app.id}/webhooks`, { url: 'https://hooks.example.com/x', enabled_events: ['*'] })).status).toBe(404);
  });

  it('the token and revocation endpoints answer odd bytes, wrong types and garbage with RFC 6749 JSON, never a 500', async () => {
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    const auth = basic(app.client_id, app.client_secret);
    const form = 'application/x-www-form-urlencoded';
    const cases: { path: string; body: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string> }[] = [
      { path: '/oauth/token', body: 'grant_type=authorization_code&code=%00abc&redirect_uri=x&code_verifier=y', headers: { authorization: auth } },
      { path: '/oauth/token', body: 'grant_type=refresh_token&refresh_token=%00', headers: { authorization: auth } },
      { path: '/oauth/token', body: `grant_type=refresh_token&refresh_token=${'r'.repeat(5_000)}`, headers: { authorization: auth } },
      { path: '/oauth/token', body: 'grant_type=refresh_token&refresh_token=%FF%FE%C3%28', headers: { authorization: auth } },
      { path: '/oauth/token', body: 'grant_type=authorization_code&client_id=%00&client_secret=x&code=c' },
      { path: '/oauth/token', body: `grant_type=authorization_code&client_id=${'c'.repeat(10_000)}&client_secret=x&code=c` },
      { path: '/oauth/token', body: 'grant_type=authorization_code&code=a', headers: { authorization: basic('\0', '\0') } },
      { path: '/oauth/token', body: 'grant_type=authorization_code&code=a', headers: { authorization: 'Basic !!!not base64' } },
      { path: '/oauth/token', body: 'grant_type=refresh_token&grant_type=password&refresh_token=a', headers: { authorization: auth } },
      { path: '/oauth/token', body: 'grant_type[]=x&refresh_token[a]=b', headers: { authorization: auth } },
      { path: '/oauth/token', body: new Uint8Array([0xff, 0xfe, 0x00, 0x3d, 0x26, 0x80]), headers: { authorization: auth } },
      { path: '/oauth/token', body: 'grant_type=refresh_token&refresh_token=a', headers: { authorization: auth, 'content-type': `${form}; charset=no-such-charset` } },
      { path: '/oauth/token', body: '{"grant_type":"refresh_token","refresh_token":"a"}', headers: { authorization: auth, 'content-type': 'application/json' } },
      { path: '/oauth/token', body: `grant_type=refresh_token&refresh_token=${'x'.repeat(60 * 1024)}`, headers: { authorization: auth } },
      { path: '/oauth/revoke', body: 'token=%00', headers: { authorization: auth } },
      { path: '/oauth/revoke', body: `token=${'t'.repeat(5_000)}&token_type_hint=%00`, headers: { authorization: auth } },
      { path: '/oauth/revoke', body: 'token=a', headers: { authorization: basic('\0', 'x') } },
      { path: '/oauth/revoke', body: new Uint8Array([0x00, 0x00, 0xff]), headers: { authorization: auth } },
    ];
    for (const c of cases) {
      const res = await fetch(`${t.baseUrl}${c.path}`, { method: 'POST', headers: { 'content-type': form, ...c.headers }, body: c.body });
      const label = `${c.path} ${typeof c.body === 'string' ? c.body.slice(0, 80) : '<bytes>'} ${JSON.stringify(c.headers ?? {}).slice(0, 80)}`;
      expect(res.status, label).toBeLessThan(500);
      if (res.status === 200) {
        expect(c.path, label).toBe('/oauth/revoke'); // RFC 7009: an unknown token is revoked already
        continue;
      }
      expect(res.headers.get('content-type'), label).toMatch(/^application\/json/);
      const body = (await res.json()) as { error: string };
      expect(['invalid_request', 'invalid_client', 'invalid_grant', 'unsupported_grant_type'], label).toContain(body.error);
    }
    // The authorization endpoint too: an unknown or malformed client is refused in words, not a 500.
    for (const query of ['client_id=%00&response_type=code', `client_id=${'c'.repeat(3_000)}&response_type=code`, 'client_id=%FF&redirect_uri=%00&response_type=code']) {
      const res = await fetch(`${t.baseUrl}/oauth/authorize?${query}`, { redirect: 'manual' });
      expect(res.status, query).toBeGreaterThanOrEqual(400);
      expect(res.status, query).toBeLessThan(500);
    }
    // Consent page ids that cannot be an authorization's: the envelope, never a 500.
    for (const uid of ['%00', 'a'.repeat(300), '%FF%FE']) {
      const res = await fetch(`${t.baseUrl}/oauth/consent/${uid}`);
      expect(res.status, uid).toBeLessThan(500);
      expect(((await res.json()) as { error: { type: string } }).error.type, uid).toBe('invalid_request');
    }
  });

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
    // The business no longer lists a connection to the deleted app.
    expect((await business.get('/v1/connected_apps?limit=100')).body.data.map((c: { app_id: string }) => c.app_id)).not.toContain(app.id);
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
