import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HandlerRoute } from '../rest-adapter/route.ts';
import { routes } from '../rest-adapter/routes/index.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { defineOperation } from '../src/domain/shared/operation.ts';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';

/**
 * A route whose body is not JSON (a CSV export, a CSV upload) answers itself, behind the same
 * edge as every other route: authentication, its operation's access, rate limits,
 * idempotency and audit apply with no code of its own.
 */
const exportVehicles = defineOperation({
  name: 'exportVehicles',
  summary: 'Export the fleet as CSV',
  description: 'The fleet, one vehicle a line.',
  access: { permission: 'vehicles:read' },
  args: z.object({}),
  errors: [],
  run: (ctx) => ctx.db.vehicle.findMany({ orderBy: { id: 'asc' }, select: { id: true, name: true, dailyRateCents: true } }),
});

const importVehicles = defineOperation({
  name: 'importVehicles',
  summary: 'Import vehicles from CSV',
  description: 'One vehicle a line: name,daily_rate_cents.',
  access: { permission: 'vehicles:write' },
  args: z.object({ lines: z.array(z.tuple([z.string().min(1).max(200), z.coerce.number().int().positive()])).min(1).max(100) }),
  errors: [],
  run: async (ctx, { lines }) => {
    const made = [];
    for (const [name, daily] of lines) {
      made.push(await ctx.db.vehicle.create({ data: { id: newId('vehicle'), ...ctx.tenant, name, currency: 'usd', dailyRateCents: daily, depositCents: 0, includedMiles: 100, extraMileFeeCents: 0 } }));
    }
    return made;
  },
});

const csvRoutes: HandlerRoute[] = [
  {
    method: 'GET', path: '/v1/vehicles.csv', operation: exportVehicles, produces: 'text/csv', stage: 'later_scope',
    async handler({ domain }) {
      const rows = await exportVehicles.call(domain, {});
      const text = ['id,name,daily_rate_cents', ...rows.map((v) => `${v.id},${v.name},${v.dailyRateCents}`)].join('\n');
      return { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8' }, body: text };
    },
  },
  {
    method: 'POST', path: '/v1/imports/vehicles', operation: importVehicles, produces: 'application/json', stage: 'later_scope', status: 201,
    answers: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['object', 'data'],
          properties: { object: { const: 'list' }, data: { type: 'array', items: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } } } },
        },
      },
    },
    async handler({ domain, body }) {
      const lines = body.trim().split('\n').map((l) => l.split(','));
      const made = await importVehicles.call(domain, { lines });
      return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ object: 'list', data: made.map((v) => ({ id: v.id, name: v.name })) }) };
    },
  },
];

describe.each(ENGINES)('routes that answer themselves, on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  beforeAll(async () => {
    t = await startTestApp(engine, {}, { routes: [...routes, ...csvRoutes] });
    api = restClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(() => t?.close());

  it('imports from a CSV body, refuses bad lines with the envelope, and replays with its Idempotency-Key', async () => {
    const csv = 'City Hatch,3900\nFamily Van,8900\n';
    const first = await api.call('POST', '/v1/imports/vehicles', csv, { 'content-type': 'text/csv', 'Idempotency-Key': 'import-1' });
    expect(first.status).toBe(201);
    expect(first.body.data.map((v: { name: string }) => v.name)).toEqual(['City Hatch', 'Family Van']);
    const replay = await api.call('POST', '/v1/imports/vehicles', csv, { 'content-type': 'text/csv', 'Idempotency-Key': 'import-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const bad = await api.call('POST', '/v1/imports/vehicles', 'No Price,abc', { 'content-type': 'text/csv' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ type: 'validation_error', code: 'parameter_invalid', param: 'lines.0.1' });
    // Audited like any write, with the objects it made.
    const audit = await t.db.prisma.auditLog.findFirst({ where: { requestId: first.headers.get('request-id')! } });
    expect(audit).toMatchObject({ method: 'POST', path: '/v1/imports/vehicles', status: 201, operation: 'importVehicles' });
    expect(audit!.objects).toEqual(expect.arrayContaining(first.body.data.map((v: { id: string }) => v.id)));
  });

  it('exports CSV behind the same edge: key, key kind, rate-limit headers, request id', async () => {
    const res = await fetch(`${t.baseUrl}/v1/vehicles.csv`, { headers: { authorization: `Bearer ${t.business.test_secret_key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(res.headers.get('ratelimit-limit')).toBeTruthy();
    const text = await res.text();
    expect(text.split('\n')[0]).toBe('id,name,daily_rate_cents');
    expect(text).toContain('City Hatch,3900');
    expect((await restClient(t.baseUrl, null).get('/v1/vehicles.csv')).body.error.code).toBe('missing_api_key');
    expect((await restClient(t.baseUrl, t.business.test_public_key).get('/v1/vehicles.csv')).body.error.code).toBe('secret_key_required');
    // Another tenant sees its own (empty) fleet.
    const other = await fetch(`${t.baseUrl}/v1/vehicles.csv`, { headers: { authorization: `Bearer ${t.other.test_secret_key}` } });
    expect((await other.text()).trim()).toBe('id,name,daily_rate_cents');
  });

  it('lists them in the OpenAPI document with their media type and error codes', async () => {
    const doc = (await restClient(t.baseUrl, null).get('/v1/openapi.json')).body;
    expect(doc.paths['/v1/vehicles.csv'].get).toMatchObject({ operationId: 'exportVehicles', 'x-error-codes': expect.arrayContaining(['missing_api_key', 'permission_denied']) });
    expect(doc.paths['/v1/vehicles.csv'].get.responses['200'].content).toHaveProperty('text/csv');
  });
});
