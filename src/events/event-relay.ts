import { createPubSub } from 'graphql-yoga';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';
import type { Database } from '../db/database.ts';
import { OUTBOX_CHANNEL, presentEvent } from '../domain/events/event.service.ts';

export type PresentedEvent = ReturnType<typeof presentEvent> & { booking_id: string | null };

/** Topic of one business in one environment: subscribers never see another tenant's events. */
export const eventTopic = (businessId: string, livemode: boolean) => `events:${businessId}:${livemode ? 'live' : 'test'}`;

export type EventPubSub = ReturnType<typeof createEventPubSub>['pubsub'];

/**
 * Live event stream for GraphQL subscriptions. With REDIS_URL, events published by one API
 * process reach subscribers of every other; without it, only this process's.
 */
export function createEventPubSub(redisUrl?: string) {
  if (!redisUrl) return { pubsub: createPubSub<Record<string, [PresentedEvent]>>(), close: async () => {} };
  const publishClient = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  const subscribeClient = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  const eventTarget = createRedisEventTarget({ publishClient, subscribeClient });
  return {
    pubsub: createPubSub<Record<string, [PresentedEvent]>>({ eventTarget }),
    close: async () => {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}

/**
 * Hands committed events to live subscribers. Each API process runs one; they share the work
 * through FOR UPDATE SKIP LOCKED, and Redis carries each event to every process.
 */
export async function startEventRelay(db: Database, pubsub: EventPubSub, pollMs = 1_000) {
  let running = false;
  let again = false;
  let stopped = false;

  async function publishDue() {
    do {
      again = false;
      const rows = await db.prisma.$queryRaw<
        { id: string; businessId: string; livemode: boolean; type: string; bookingId: string | null; data: unknown; requestId: string | null; idempotencyKey: string | null; createdAt: Date }[]
      >`UPDATE "Event" SET "publishedAt" = now()
         WHERE id IN (SELECT id FROM "Event" WHERE "publishedAt" IS NULL ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED)
         RETURNING id, "businessId", livemode, type, "bookingId", data, "requestId", "idempotencyKey", "createdAt"`;
      rows.sort((a, b) => (a.id < b.id ? -1 : 1));
      for (const row of rows) pubsub.publish(eventTopic(row.businessId, row.livemode), { ...presentEvent(row), booking_id: row.bookingId });
      if (rows.length === 200) again = true;
    } while (again && !stopped);
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    publishDue()
      .catch((err) => !stopped && console.error('event relay failed', err))
      .finally(() => {
        running = false;
      });
  }

  const unlisten = await db.listen(OUTBOX_CHANNEL, kick);
  const timer = setInterval(kick, pollMs);
  timer.unref();
  kick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await unlisten();
    },
  };
}
