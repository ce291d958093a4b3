import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { tenantDbFactory } from '../src/db/tenant-db.ts';
import { recordEvent } from '../src/domain/events/event.service.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { newEndpointSecret } from '../src/domain/webhooks/signing.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { spawnTs, type Child } from './support/processes.ts';
import { startReceiver } from './support/receiver.ts';

/*
 * `npm run worker` run as its own process (the real entry point, as a child process) serves
 * /health/live, /health/ready and /metrics on WORKER_METRICS_PORT, under the API's rule for
 * /metrics: loopback callers not behind a proxy, or METRICS_TOKEN as a bearer token. Its
 * counters are its own work: a webhook it delivers shows in them.
 */

const SERVED = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*worker health and metrics served/;

describe('the worker process serves its health and metrics (PostgreSQL)', () => {
  let pg: Awaited<ReturnType<typeof createTestPostgresDatabase>>;
  let db: Database;
  let business: CreatedBusiness;
  const children: Child[] = [];

  async function startWorker(env: Record<string, string> = {}) {
    const worker = await spawnTs('src/worker.ts', { DATABASE_URL: pg.url, WEBHOOK_POLL_MS: '100', LOG_LEVEL: 'info', WORKER_METRICS_PORT: '0', METRICS_TOKEN: '', ...env }, SERVED);
    children.push(worker);
    return { ...worker, url: worker.match[1] };
  }

  beforeAll(async () => {
    pg = await createTestPostgresDatabase();
    db = await openDatabase({ databaseUrl: pg.url });
    business = await createBusiness(db.prisma, { name: 'Worker Rentals' });
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop('SIGKILL')));
    await db?.close();
    await pg?.drop();
  });

  it('answers /health/live, /health/ready and, on loopback, /metrics with its own delivery counts; refuses a proxied caller, other methods and other paths in the envelope', { timeout: 90_000 }, async () => {
    const receiver = await startReceiver(undefined, { syntheticEvents: true });
    try {
      const worker = await startWorker();

      const live = await fetch(`${worker.url}/health/live`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ object: 'health', status: 'ok' });
      const ready = await fetch(`${worker.url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ok', checks: { database: { status: 'ok', engine: 'postgres' }, migrations: { status: 'ok', pending: [] }, redis: { status: 'not_configured' } } });

      // Given a webhook the worker delivers
      await db.prisma.webhookEndpoint.create({
        data: { id: newId('webhookEndpoint'), businessId: business.business_id, livemode: false, url: receiver.url, enabledEvents: ['*'], secret: newEndpointSecret() },
      });
      const origin = { businessId: business.business_id, livemode: false, requestId: null, idempotencyKey: null };
      await tenantDbFactory(db.prisma)(origin).$transaction((tx) => recordEvent(tx, origin, { type: 'booking.created', object: { object: 'test' } }));
      await receiver.waitFor((all) => all.length === 1);

      // Then its /metrics counts it, with the queue gauges
      let text = '';
      // The counter moves when the answer arrives; the gauge, read from the database, once the
      // message's new state commits a moment later. Wait for both.
      const settled = (t: string) => /webhook_delivery_attempts_total\{outcome="delivered"\} 1\b/.test(t) && /webhook_queue_pending\{livemode="false"\} 0\b/.test(t);
      for (let i = 0; i < 50 && !settled(text); i++) {
        const metrics = await fetch(`${worker.url}/metrics`);
        expect(metrics.status).toBe(200);
        expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
        text = await metrics.text();
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(text).toMatch(/webhook_delivery_attempts_total\{outcome="delivered"\} 1\b/);
      expect(text).toMatch(/webhook_queue_pending\{livemode="false"\} 0\b/);
      expect(text).toMatch(/process_cpu_user_seconds_total/);
      // Its own requests are counted too, by route template.
      expect(text).toMatch(/http_requests_total\{method="GET",route="\/health\/ready",status="200"\} 1\b/);

      const proxied = await fetch(`${worker.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(proxied.status).toBe(403);
      expect((await proxied.json()).error).toMatchObject({ code: 'metrics_not_local', request_id: expect.stringMatching(/^req_/) });
      const posted = await fetch(`${worker.url}/metrics`, { method: 'POST' });
      expect(posted.status).toBe(405);
      expect(posted.headers.get('allow')).toBe('GET, HEAD');
      const other = await fetch(`${worker.url}/v1/vehicles`);
      expect(other.status).toBe(404);
      expect((await other.json()).error).toMatchObject({ type: 'invalid_request', code: 'route_not_found' });

      // And it stops cleanly, its port closed
      await worker.stop();
      expect(worker.process.exitCode).toBe(0);
      await expect(fetch(`${worker.url}/health/live`)).rejects.toThrow();
    } finally {
      await receiver.close();
    }
  });

  it('takes METRICS_TOKEN as the API does: a bearer token, from anywhere, and nothing else', { timeout: 60_000 }, async () => {
    const worker = await startWorker({ METRICS_TOKEN: 'worker-scrape-token' });
    const without = await fetch(`${worker.url}/metrics`);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('Bearer');
    expect((await without.json()).error).toMatchObject({ code: 'metrics_token_invalid' });
    expect((await fetch(`${worker.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const withToken = await fetch(`${worker.url}/metrics`, { headers: { authorization: 'Bearer worker-scrape-token', 'x-forwarded-for': '203.0.113.7' } });
    expect(withToken.status).toBe(200);
    expect(await withToken.text()).toMatch(/webhook_delivery_attempts_total\{outcome="delivered"\} 0\b/);
    await worker.stop();
  });

  it('serves nothing without WORKER_METRICS_PORT', { timeout: 60_000 }, async () => {
    const worker = await spawnTs('src/worker.ts', { DATABASE_URL: pg.url, LOG_LEVEL: 'info', WORKER_METRICS_PORT: '' }, /webhook worker delivering/);
    children.push(worker);
    expect(worker.output()).not.toMatch(/worker health and metrics served/);
    await worker.stop();
    expect(worker.process.exitCode).toBe(0);
  });
});
