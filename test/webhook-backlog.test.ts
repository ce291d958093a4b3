// One endpoint with a backlog: the worker keeps claiming as answers free room at the endpoint,
// not once a poll. Before, a claim stopped at the endpoint's limit (5 messages held) was
// followed by the next only at the poll, so an endpoint got 5 deliveries a second however fast
// it answered, and a busy business's queue grew without end (the chaos test's long run left
// 1,280 of 6,592 events undelivered).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { tenantDbFactory } from '../src/db/tenant-db.ts';
import { recordEvent } from '../src/domain/events/event.service.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { newEndpointSecret } from '../src/domain/webhooks/signing.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { perEndpointLimit, startDeliveryWorker } from '../src/webhooks/delivery-worker.ts';
import { ENGINES } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { startReceiver } from './support/receiver.ts';

const TOTAL = 150;

describe.each(ENGINES)('one endpoint with a backlog on %s', (engine) => {
  let pg: Awaited<ReturnType<typeof createTestPostgresDatabase>> | null = null;
  let db: Database;
  let business: CreatedBusiness;

  beforeAll(async () => {
    pg = engine === 'postgres' ? await createTestPostgresDatabase() : null;
    db = await openDatabase(pg ? { databaseUrl: pg.url } : { dataDir: 'memory://' });
    business = await createBusiness(db.prisma, { name: 'Busy Rentals' });
  });
  afterAll(async () => {
    await db?.close();
    await pg?.drop();
  });

  it(`delivers ${TOTAL} queued events in order without waiting for the poll`, async () => {
    const receiver = await startReceiver(undefined, { syntheticEvents: true });
    const options = { pollMs: 600_000, leaseMs: 60_000, timeoutMs: 10_000 };
    expect(perEndpointLimit(options)).toBe(5); // far fewer than the backlog
    try {
      const endpoint = await db.prisma.webhookEndpoint.create({
        data: { id: newId('webhookEndpoint'), businessId: business.business_id, livemode: false, url: receiver.url, enabledEvents: ['*'], secret: newEndpointSecret() },
      });
      const origin = { businessId: business.business_id, livemode: false, requestId: null, idempotencyKey: null };
      const scoped = tenantDbFactory(db.prisma)({ businessId: business.business_id, livemode: false });
      const eventIds: string[] = [];
      await scoped.$transaction(
        async (tx) => {
          for (let n = 0; n < TOTAL; n++) eventIds.push((await recordEvent(tx, origin, { type: 'booking.created', object: { object: 'test', n } })).id);
        },
        { timeout: 60_000 },
      );
      expect(await db.prisma.webhookMessage.count({ where: { endpointId: endpoint.id, state: 'pending' } })).toBe(TOTAL);

      // The poll comes after 10 minutes: only the start's claim and what follows from answers remain.
      const worker = await startDeliveryWorker(db, options);
      try {
        await receiver.waitFor((all) => all.length >= TOTAL, 30_000);
      } finally {
        await worker.stop();
      }
      expect(receiver.received.map((r) => r.json.id)).toEqual(eventIds);
      expect(await db.prisma.webhookMessage.count({ where: { endpointId: endpoint.id, state: 'delivered', attempts: 1 } })).toBe(TOTAL);
    } finally {
      await receiver.close();
    }
  });
});
