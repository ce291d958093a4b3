// A deprecated route, as docs/versioning.md announces one: every answer carries the
// `Deprecation` and `Sunset` headers, on the Node server's path and through the pipeline,
// and the OpenAPI document marks the operation deprecated with its sunset and replacement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../rest-adapter/routes/index.ts';
import { restClient, startTestApp, type TestApp } from './support/app.ts';

const deprecated = { since: '2026-12-01', sunset: '2027-06-01', use: 'GET /v1/availability' };
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp('pglite', {}, { routes: routes.map((r) => (r.method === 'GET' && r.path === '/v1/vehicles' ? { ...r, deprecated } : r)) });
});
afterAll(() => t?.close());

describe('a deprecated route', () => {
  it('says so on every answer, success or error, and other routes do not', async () => {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    const answers = [await api.get('/v1/vehicles'), await api.get('/v1/vehicles?limit=0'), await restClient(t.baseUrl, null).get('/v1/vehicles')];
    expect(answers.map((r) => r.status)).toEqual([200, 422, 401]);
    for (const res of answers) {
      expect(res.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
      expect(res.headers.get('sunset')).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    }
    const other = await api.get('/v1/bookings');
    expect(other.status).toBe(200);
    expect(other.headers.get('deprecation')).toBeNull();
    expect(other.headers.get('sunset')).toBeNull();
  });

  it('answers alike through the pipeline (App.handle)', async () => {
    const res = await t.app.handle(new Request(`${t.baseUrl}/v1/vehicles`, { headers: { authorization: `Bearer ${t.business.test_secret_key}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
    expect(res.headers.get('sunset')).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
  });

  it('is marked in the OpenAPI document with its sunset and what to use instead', async () => {
    const doc = await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json();
    const op = doc.paths['/v1/vehicles'].get;
    expect(op.deprecated).toBe(true);
    expect(op['x-sunset']).toBe('2027-06-01');
    expect(op.description).toContain('Deprecated since 2026-12-01: use GET /v1/availability. It answers until 2027-06-01.');
    expect(doc.paths['/v1/vehicles'].post.deprecated).toBeUndefined();
  });
});
