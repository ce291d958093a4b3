import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHandlerRoute, type RestRoute } from '../rest-adapter/route.ts';
import { routes } from '../rest-adapter/routes/index.ts';
import { TENANT_MODELS } from '../src/db/tenant-db.ts';
import { browserBookingSecrets } from '../src/domain/bookings/browser-booking.ts';
import { platformSecret } from '../src/platform/secrets.ts';
import { appAccessToken } from './support/app-token.ts';
import { ENGINES, restClient, startTestApp, type ApiResponse, type TestApp } from './support/app.ts';
import { bodyTextOf, mutatedBodyOf, pathSegmentOf, valueOf } from './support/fuzz.ts';
import { makeRow, models, rowData, unique } from './support/rows.ts';

/*
 * The contract every route keeps, generated from the route table: a route added later is
 * covered with no new test code (a new kind of path id needs its model found below, by name).
 *
 * For each route: no key 401 (an OAuth app's token of an ended connection too); a publishable key 403 unless the route is public
 * (from an origin the business does not allow, 403 browser_origin_not_allowed); with a booking's client_secret (the browser
 * booking's caller) 403 unless the route is that booking's read or checkout, and 401 for a forged secret; a live key
 * on /v1/test/* 403; another business's id and the other environment's id answer exactly like
 * an unknown id (404); malformed JSON 400; an unknown parameter 422; a POST replayed with its
 * Idempotency-Key answers the same. Then a fuzz over the route's input schema: never a 5xx,
 * always the envelope with a code the route documents, and no row changed by a refused
 * request. Every error answered anywhere here must be among the route's documented codes.
 */

/** The model a path parameter names: `booking_id` → Booking; a few by another name. */
const PARAM_MODELS: Record<string, string> = { endpoint_id: 'WebhookEndpoint', delivery_id: 'WebhookDelivery', member_id: 'TeamMember' };
function modelOf(param: string): string {
  const model = PARAM_MODELS[param] ?? param.replace(/_id$/, '').replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase());
  if (!models[model]) throw new Error(`path parameter ${param}: no model ${model} in schema.prisma (name it in PARAM_MODELS)`);
  return model;
}

/** The model a body field names (`vehicle_id`), when there is one. */
function modelOfField(field: string): string {
  try {
    return modelOf(field);
  } catch {
    return '';
  }
}

const paramsOf = (route: RestRoute) => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
const pathWith = (route: RestRoute, ids: Record<string, string>) => route.path.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name]);
const label = (route: RestRoute) => `${route.method} ${route.path}`;
const UNKNOWN = 'unknown_01jd3m4k5n6p7q8r9s0t1v2w3x';

type OpenApi = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };

/**
 * Tables a refused request must leave as they were: all but its own audit record and
 * idempotency claim, and the webhook bookkeeping the relay and delivery workers update in the
 * background (an event's publishedAt, its messages and attempts).
 */
const WATCHED = [...TENANT_MODELS.keys(), 'Business'].filter((m) => !['AuditLog', 'IdempotencyRecord', 'WebhookMessage', 'WebhookDelivery'].includes(m));
const BACKGROUND_COLUMNS: Record<string, string> = { Event: ` - 'publishedAt'` };

describe.each(ENGINES)('route contract on %s', (engine) => {
  let t: TestApp;
  let doc: OpenApi;
  let counted = 0;
  /** Rows of the caller (business A, sandbox), of business B (sandbox), and of A's live environment, by model. */
  const own = new Map<string, string>();
  const foreign = new Map<string, string>();
  const otherEnvironment = new Map<string, string>();

  const client = (key: string | null) => restClient(t.baseUrl, key);
  const operation = (route: RestRoute) => doc.paths[route.path][route.method.toLowerCase()];
  const documented = (route: RestRoute) => new Set<string>(operation(route)['x-error-codes']);

  /** The answer is the contract's error, with a code the route documents. */
  function expectError(route: RestRoute, res: ApiResponse, status: number, code: string) {
    expect({ route: label(route), status: res.status, code: res.body?.error?.code }).toEqual({ route: label(route), status, code });
    expectEnvelope(route, res);
  }
  function expectEnvelope(route: RestRoute, res: ApiResponse) {
    const error = res.body?.error;
    expect(error, `${label(route)} answered ${res.status} without the error envelope: ${JSON.stringify(res.body)?.slice(0, 200)}`).toMatchObject({
      type: expect.any(String), code: expect.any(String), message: expect.any(String), request_id: expect.stringMatching(/^req_/),
    });
    expect(res.headers.get('request-id')).toBe(error.request_id);
    expect(documented(route), `${label(route)} answered ${error.code}, which its OpenAPI entry does not list`).toContain(error.code);
  }

  async function rowsOf(owner: { businessId: string; livemode: boolean }, into: Map<string, string>) {
    const named = routes.flatMap(paramsOf).map(modelOf);
    for (const model of new Set([...named, 'Vehicle', 'Customer', 'Quote', 'Booking', 'Conversation'])) into.set(model, String((await makeRow(t.db, model, owner)).id));
  }
  const idsFor = (route: RestRoute, rows: Map<string, string>) => Object.fromEntries(paramsOf(route).map((p) => [p, encodeURIComponent(rows.get(modelOf(p))!)]));

  /** A digest of every watched table, to see that a refused request changed nothing. */
  async function digest(): Promise<string> {
    const parts = await Promise.all(
      WATCHED.map((m) => {
        const row = `(to_jsonb(x)${BACKGROUND_COLUMNS[m] ?? ''})::text`;
        return t.db.prisma.$queryRawUnsafe<{ d: string | null }[]>(`SELECT md5(string_agg(md5(${row}), '' ORDER BY md5(${row}))) AS d FROM "${m}" x`).then((r) => `${m}:${r[0].d}`);
      }),
    );
    return parts.join('|');
  }

  let disconnectedAppToken: string;
  /** A booking of the caller's (with an id of the booking kind) and its client secret: the browser booking's caller of that booking. */
  let browserBooking: string;
  let clientSecret: string;
  beforeAll(async () => {
    t = await startTestApp(engine);
    doc = (await client(null).get('/v1/openapi.json')).body as OpenApi;
    await rowsOf({ businessId: t.business.business_id, livemode: false }, own);
    await rowsOf({ businessId: t.other.business_id, livemode: false }, foreign);
    await rowsOf({ businessId: t.business.business_id, livemode: true }, otherEnvironment);
    // An OAuth app's access token whose connection the business ended.
    disconnectedAppToken = await appAccessToken(t.db, { platformBusinessId: t.other.business_id, businessId: t.business.business_id, scopes: ['bookings:read'] });
    await t.db.prisma.connectedApp.updateMany({ where: { businessId: t.business.business_id }, data: { revokedAt: new Date() } });
    const secrets = browserBookingSecrets(await platformSecret(t.db.prisma, 'browser_bookings'));
    const owner = { businessId: t.business.business_id, livemode: false };
    browserBooking = String((await t.db.prisma.booking.create({ data: { ...(await rowData(t.db, 'Booking', owner)), id: `bk_${unique()}` } as never })).id);
    clientSecret = secrets.clientSecret(owner, browserBooking);
  });
  afterAll(async () => {
    console.log(`route contract on ${engine}: ${routes.length} routes, ${counted} generated cases`);
    await t?.close();
  });

  it('has a documented entry for every route of the table', () => {
    for (const route of routes) expect(operation(route), label(route)).toMatchObject({ summary: expect.any(String), description: expect.any(String), 'x-error-codes': expect.any(Array) });
  });

  describe.each(routes.map((route) => [label(route), route] as const))('%s', (_name, route) => {
    const body = route.method === 'GET' ? undefined : {};
    const call = (key: string | null, path: string, b: unknown = body, headers: Record<string, string> = {}) => {
      counted++;
      return client(key).call(route.method, path, b, headers);
    };
    const path = () => pathWith(route, idsFor(route, own));

    it('answers no key with 401 missing_api_key and an unknown key with 401 invalid_api_key', async () => {
      expectError(route, await call(null, path()), 401, 'missing_api_key');
      expectError(route, await call('svc_test_sk_' + 'x'.repeat(40), path()), 401, 'invalid_api_key');
      expectError(route, await call(disconnectedAppToken, path()), 401, 'token_revoked');
    });

    it('answers a publishable key with 403 unless the route is public, and a live key on /v1/test/* with 403 sandbox_only', async () => {
      const op = operation(route);
      const res = await call(t.business.test_public_key, path());
      if (op['x-publishable-key']) expect(res.status, label(route)).not.toBe(403);
      else expectError(route, res, 403, 'secret_key_required');
      if (route.path.startsWith('/v1/test/')) expectError(route, await call(t.business.live_secret_key, path()), 403, 'sandbox_only');
    });

    it("answers a publishable key with a booking's client_secret only on that booking's read and checkout (else 403), a forged secret 401, a refused origin 403", async () => {
      const op = operation(route);
      const ownBooking = op['x-publishable-key-with-client-secret'] === true;
      const withSecret = await call(t.business.test_public_key, ownBooking ? pathWith(route, { ...idsFor(route, own), booking_id: browserBooking }) : path(), body, { 'x-client-secret': clientSecret });
      if (ownBooking) expect(withSecret.status, label(route)).not.toBe(403);
      else expectError(route, withSecret, 403, 'secret_key_required');
      // That booking's read and checkout, of another booking: exactly like an unknown one.
      if (ownBooking) expectError(route, await call(t.business.test_public_key, path(), body, { 'x-client-secret': clientSecret }), 404, 'resource_missing');
      const forged = `${browserBooking}_secret_${'A'.repeat(43)}`;
      expectError(route, await call(t.business.test_public_key, path(), body, { 'x-client-secret': forged }), 401, 'invalid_client_secret');
      expectError(route, await call(t.business.test_public_key, `${path()}?client_secret=${'x'.repeat(5000)}`), 401, 'invalid_client_secret');
      expectError(route, await call(t.business.test_public_key, path(), body, { origin: 'https://not-allowed.example' }), 403, 'browser_origin_not_allowed');
    });

    if (paramsOf(route).length > 0) it("answers another business's id and the other environment's id exactly like an unknown id", async () => {
      const shape = (res: ApiResponse, ids: Record<string, string>) => {
        let message: string = res.body?.error?.message ?? '';
        for (const id of Object.values(ids)) message = message.split(decodeURIComponent(id)).join('<id>');
        return { status: res.status, type: res.body?.error?.type, code: res.body?.error?.code, param: res.body?.error?.param, message };
      };
      // A route whose body is required gets its documented example: the answer is about the path's id, not a missing body.
      const requestBody = operation(route).requestBody;
      const valid = requestBody?.required ? requestBody.content?.['application/json']?.example : body;
      const unknownIds = Object.fromEntries(paramsOf(route).map((p) => [p, UNKNOWN]));
      const unknown = await call(t.business.test_secret_key, pathWith(route, unknownIds), valid);
      expectError(route, unknown, 404, 'resource_missing');
      // The team belongs to both environments (its rows carry no livemode): there, only another business's id is foreign.
      const businessWide = paramsOf(route).some((p) => TENANT_MODELS.get(modelOf(p))?.environment === false);
      for (const rows of businessWide ? [foreign] : [foreign, otherEnvironment]) {
        const ids = idsFor(route, rows);
        const res = await call(t.business.test_secret_key, pathWith(route, ids), valid);
        expectEnvelope(route, res);
        expect(shape(res, ids), label(route)).toEqual(shape(unknown, unknownIds));
      }
    });

    if (route.method === 'POST' && !isHandlerRoute(route)) it('answers malformed JSON with 400 invalid_json', async () => {
      for (const text of ['{"a":', '{', '[1,2']) expectError(route, await call(t.business.test_secret_key, path(), text), 400, 'invalid_json');
    });

    it('answers an unknown parameter with 422 parameter_unknown naming it', async () => {
      const res = await call(t.business.test_secret_key, `${path()}?zz_unknown_param=1`);
      expectError(route, res, 422, 'parameter_unknown');
      expect(res.body.error.param).toBe('zz_unknown_param');
      if (route.method === 'POST') {
        const inBody = await call(t.business.test_secret_key, path(), { zz_unknown_param: 1 });
        expectError(route, inBody, 422, 'parameter_unknown');
        expect(inBody.body.error.param).toBe('zz_unknown_param');
      }
    });

    if (route.method === 'POST') it('replays a POST sent again with its Idempotency-Key: same status, body and request id, no second effect', async () => {
      const headers = { 'Idempotency-Key': `contract-${route.path}-${Math.random()}` };
      const first = await call(t.business.test_secret_key, path(), body, headers);
      expect(first.status, label(route)).toBeLessThan(500);
      if (first.status >= 400) expectEnvelope(route, first);
      const before = await digest();
      const again = await call(t.business.test_secret_key, path(), body, headers);
      expect({ status: again.status, body: again.body, replayed: again.headers.get('idempotent-replayed'), requestId: again.headers.get('request-id') }).toEqual({
        status: first.status, body: first.body, replayed: 'true', requestId: first.headers.get('request-id'),
      });
      expect(await digest()).toBe(before);
    });

    it('survives its fuzz: never a 5xx, always the envelope with a documented code, no row changed by a refusal', async () => {
      const op = operation(route);
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const query = (op.parameters ?? []).filter((p: any) => p.in === 'query');
      const realIds = paramsOf(route).map((p) => encodeURIComponent(own.get(modelOf(p))!));
      const pathArb = fc.tuple(...paramsOf(route).map(() => pathSegmentOf(realIds.length ? realIds : [UNKNOWN]))).map((segments) => {
        let i = 0;
        return route.path.replace(/\{(\w+)\}/g, () => segments[i++]);
      });
      const queryArb = fc.array(
        fc.oneof(
          ...(query.length ? [fc.constantFrom(...query).chain((p: any) => valueOf(p.schema, doc.components.schemas).map((v) => [p.name, typeof v === 'string' ? v : JSON.stringify(v)] as const))] : []),
          fc.constant(['zz_unknown', '1'] as const),
        ),
        { maxLength: 3 },
      );
      const ids = (field: string) => (field.endsWith('_id') ? own.get(modelOfField(field)) : undefined);
      const example = op.requestBody?.content?.['application/json']?.example as Record<string, unknown> | undefined;
      const bodyArb =
        route.method === 'GET'
          ? fc.constant(undefined)
          : example
            ? fc.oneof({ weight: 3, arbitrary: mutatedBodyOf(example, ids) }, { weight: 2, arbitrary: bodyTextOf(bodySchema, doc.components.schemas, ids) })
            : bodyTextOf(bodySchema, doc.components.schemas, ids);
      await fc.assert(
        fc.asyncProperty(pathArb, queryArb, bodyArb, async (p, q, b) => {
          const search = new URLSearchParams(q.map(([k, v]) => [k, v] as [string, string]));
          const url = `${p}${q.length ? `?${search}` : ''}`;
          const before = await digest();
          const res = await call(t.business.test_secret_key, url, b);
          expect(res.status, `${route.method} ${url} ${String(b).slice(0, 300)} → ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
          if (res.status >= 400) {
            expectEnvelope(route, res);
            // The sandbox's declined payment records its decline by design (then answers 402).
            if (!('answersError' in route && route.answersError)) expect(await digest(), `${route.method} ${url} changed rows and answered ${res.status}`).toBe(before);
          }
        }),
        { numRuns: Number(process.env.CONTRACT_FUZZ_RUNS ?? 25), endOnFailure: true },
      );
    });
  });
});
