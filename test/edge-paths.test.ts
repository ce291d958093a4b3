import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestRoute } from '../rest-adapter/route.ts';
import { routes } from '../rest-adapter/routes/index.ts';
import { createSignInLink, redeemSignInLink } from '../src/ops/sessions.ts';
import { appAccessToken } from './support/app-token.ts';
import { createApiKey, revokeApiKey } from '../src/platform/api-keys.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { ENGINES, startTestApp, type TestApp } from './support/app.ts';
import { makeRow, models } from './support/rows.ts';

/*
 * The Node server's own path and yoga's pipeline run the same edge steps
 * (src/http/edge/steps.ts): every GET route of the route table, asked of both by every kind
 * of caller, answers the same status, the same headers and the same body, byte for byte. Only
 * what names the request itself differs: its Request-Id (also in an error's body), and the
 * rate limit's count of the requests before it.
 */

const SANDBOX_HOST = 'sandbox.rental.test';
const PRODUCTION_HOST = 'api.rental.test';

const PARAM_MODELS: Record<string, string> = { endpoint_id: 'WebhookEndpoint', delivery_id: 'WebhookDelivery', member_id: 'TeamMember' };
const modelOf = (param: string) => PARAM_MODELS[param] ?? param.replace(/_id$/, '').replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase());
const paramsOf = (route: RestRoute) => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** Headers that describe the connection or the moment, not the answer. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What is left to compare once the request's own id and the rate limit's running count are named alike. */
function comparable(answer: Answer) {
  const requestId = answer.headers['request-id'];
  const headers = Object.fromEntries(
    Object.entries(answer.headers)
      .filter(([name]) => !TRANSPORT_HEADERS.has(name))
      .map(([name, value]) => [name, name === 'request-id' ? '<request>' : name === 'ratelimit-remaining' || name === 'ratelimit-reset' ? '<count>' : value]),
  );
  const body = requestId ? Buffer.from(answer.body.toString('latin1').split(requestId).join('<request>'), 'latin1') : answer.body;
  return { status: answer.status, headers, body: body.toString('base64') };
}

describe.each(ENGINES)('the Node path and the pipeline on %s', (engine) => {
  let t: TestApp;
  let port: number;
  const ids = new Map<string, string>();
  let doc: { paths: Record<string, Record<string, { parameters?: { name: string; in: string; required?: boolean; example?: unknown }[] }>> };
  const callers: { name: string; host: string; headers: Record<string, string> }[] = [];

  /** Through the Node server's own path: a real socket, the raw answer. */
  function viaNode(host: string, path: string, headers: Record<string, string>): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers: { ...headers, host } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers as Record<string, string>, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Through yoga's pipeline: the Fetch API request handed to App.handle. */
  async function viaPipeline(host: string, path: string, headers: Record<string, string>): Promise<Answer> {
    const res = await t.app.handle(new Request(`http://${host}${path}`, { headers }));
    const out: Record<string, string> = {};
    res.headers.forEach((value, name) => (out[name] = value));
    return { status: res.status, headers: out, body: Buffer.from(await res.arrayBuffer()) };
  }

  beforeAll(async () => {
    // A clock that stands still: an answer that tells the time (the sandbox clock) tells the same one twice.
    const frozen = new Date();
    t = await startTestApp(engine, { sandboxHost: SANDBOX_HOST, productionHost: PRODUCTION_HOST }, { now: () => new Date(frozen) });
    port = Number(new URL(t.baseUrl).port);
    doc = (await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as typeof doc;
    const owner = { businessId: t.business.business_id, livemode: false };
    for (const model of new Set(routes.flatMap(paramsOf).map(modelOf))) {
      if (!models[model]) throw new Error(`no model ${model}`);
      ids.set(model, String((await makeRow(t.db, model, owner)).id));
    }
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    const restricted = await createApiKey(t.db.prisma, { businessId: owner.businessId, livemode: false, kind: 'secret', permissions: ['bookings:read', 'vehicles:read'] });
    const member = await t.db.prisma.teamMember.create({ data: { id: newId('teamMember'), businessId: owner.businessId, email: 'agent@example.com', name: 'Agent', role: 'agent', permissions: [] } });
    const memberKey = await createApiKey(t.db.prisma, { businessId: owner.businessId, livemode: false, kind: 'secret', memberId: member.id });
    const revoked = await createApiKey(t.db.prisma, { businessId: owner.businessId, livemode: false, kind: 'secret' });
    await revokeApiKey(t.db.prisma, owner.businessId, revoked.id);
    const viewer = await t.db.prisma.teamMember.create({ data: { id: newId('teamMember'), businessId: owner.businessId, email: 'viewer@example.com', name: 'Viewer', role: 'viewer', permissions: [] } });
    const link = await createSignInLink(t.db.prisma, { businessId: owner.businessId, memberId: viewer.id, livemode: false });
    const session = await redeemSignInLink(t.db.prisma, link.token, new Date());
    const appToken = await appAccessToken(t.db, { platformBusinessId: t.other.business_id, businessId: owner.businessId, scopes: ['bookings:read', 'vehicles:read'] });
    callers.push(
      { name: 'secret key', host: SANDBOX_HOST, headers: bearer(t.business.test_secret_key) },
      { name: 'OAuth app access token', host: SANDBOX_HOST, headers: bearer(appToken) },
      { name: 'restricted key', host: SANDBOX_HOST, headers: bearer(restricted.key) },
      { name: 'member-bound key', host: SANDBOX_HOST, headers: bearer(memberKey.key) },
      { name: 'publishable key', host: SANDBOX_HOST, headers: bearer(t.business.test_public_key) },
      { name: 'ops session cookie', host: SANDBOX_HOST, headers: { cookie: `ops_session=${session.token}` } },
      { name: 'live key on the sandbox host', host: SANDBOX_HOST, headers: bearer(t.business.live_secret_key) },
      { name: 'revoked key', host: SANDBOX_HOST, headers: bearer(revoked.key) },
      { name: 'no key', host: SANDBOX_HOST, headers: {} },
    );
  });
  afterAll(() => t?.close());

  const gets = routes.filter((r) => r.method === 'GET');

  it('covers every GET route of the route table', () => {
    expect(gets.length).toBeGreaterThan(40);
  });

  it.each(gets.map((route) => [`GET ${route.path}`, route] as const))('%s answers alike on both paths, for every kind of caller', async (_name, route) => {
    // The documented example of each required query parameter, and of a window's start and end (their default is now, which moves).
    const query = new URLSearchParams();
    for (const p of doc.paths[route.path].get.parameters ?? []) {
      if (p.in === 'query' && p.example !== undefined && (p.required || p.name === 'start_at' || p.name === 'end_at')) query.set(p.name, String(p.example));
    }
    const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(ids.get(modelOf(name))!)) + (query.size ? `?${query}` : '');
    const statuses = new Set<number>();
    for (const caller of callers) {
      const node = await viaNode(caller.host, path, caller.headers);
      const pipeline = await viaPipeline(caller.host, path, caller.headers);
      expect({ caller: caller.name, ...comparable(pipeline) }).toEqual({ caller: caller.name, ...comparable(node) });
      expect(node.headers['request-id']).toMatch(/^req_/);
      expect(pipeline.headers['request-id']).not.toBe(node.headers['request-id']);
      statuses.add(node.status);
    }
    // Answers and refusals alike were compared: the callers reach different outcomes.
    expect(statuses.has(401)).toBe(true);
    expect([...statuses].some((s) => s < 300 || s === 403 || s === 404)).toBe(true);
  });
});
