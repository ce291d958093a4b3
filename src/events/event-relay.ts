import { createPubSub } from 'graphql-yoga';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import type { Redis } from 'ioredis';
import type { Database } from '../db/database.ts';
import { claimEvents, type ClaimEventsRow } from '../db/sql/generated/platform.ts';
import { platformSql } from '../db/sql/named-sql.ts';
import { OUTBOX_CHANNEL, presentEvent } from '../domain/events/event.service.ts';
import { answerWithin, connectRedis, type RedisLink } from '../http/rate-limit.ts';
import { log } from '../log.ts';

export type PresentedEvent = ReturnType<typeof presentEvent> & { booking_id: string | null };

/** Topic of one business in one environment: subscribers never see another tenant's events. */
export const eventTopic = (businessId: string, livemode: boolean) => `events:${businessId}:${livemode ? 'live' : 'test'}`;

type Events = Record<string, [PresentedEvent]>;
type EventTargetOf<T> = NonNullable<NonNullable<Parameters<typeof createPubSub<Events>>[0]>['eventTarget']> & T;

export type EventPubSub = ReturnType<typeof createEventPubSub>['pubsub'];

/**
 * Live event stream for GraphQL subscriptions. With REDIS_URL, events published by one API
 * process reach subscribers of every other while Redis is available; while it is not, this
 * process's subscribers still receive what this process publishes, and when it is back the
 * subscriptions (also those opened meanwhile) receive from every process again, without a
 * restart. Redis going away and coming back is logged once each.
 */
export function createEventPubSub(redisUrl?: string, options: { log?: (line: string) => void } = {}) {
  const publisher = redisUrl ? connectRedis(redisUrl, { feature: 'live events', log: options.log }) : null;
  if (!redisUrl || !publisher) return { pubsub: createPubSub<Events>(), close: async () => {} };
  const topics = new Set<string>();
  const subscriber = connectRedis(redisUrl, {
    feature: 'live events',
    log: options.log,
    // Each connection subscribes to every topic anew before it counts as usable, topics
    // opened while Redis was away included (ioredis would only restore those it had).
    autoResubscribe: false,
    check: async (client) => {
      const done = new Set<string>();
      for (;;) {
        const missing = [...topics].filter((t) => !done.has(t)); // also those opened meanwhile
        if (!missing.length) return;
        await client.subscribe(...missing);
        for (const t of missing) done.add(t);
      }
    },
  })!;
  const { eventTarget, deliver } = failoverEventTarget(publisher, subscriber, topics);
  const pubsub = createPubSub<Events>({ eventTarget });
  isolation.set(pubsub, { isolated: () => !(publisher.usable() && subscriber.usable()), deliverHere: deliver });
  return {
    pubsub,
    close: async () => {
      publisher.close();
      subscriber.close();
    },
  };
}

/** How many delivered events each process remembers, so that none reaches its subscribers twice. */
const REMEMBERED = 2_000;

/**
 * An EventTarget over graphql-yoga's Redis one, with this process as the fallback. Redis
 * carries an event to the subscribers of every process, this one's included, so while both
 * connections are usable an event is only published. While the publishing connection is not,
 * this process's subscribers receive it directly; while the subscribing one is not, both
 * (other processes still get it). Whatever way an event arrives, one that was already
 * delivered here (the same id on the same topic) is dropped: a publish that timed out but
 * went through, then also delivered here, reaches each subscriber once.
 */
function failoverEventTarget(publisher: RedisLink, subscriber: RedisLink, topics: Set<string>) {
  const listeners = new Map<string, Set<EventListenerOrEventListenerObject>>();
  const delivered = new Set<string>();

  function deliver(topic: string, detail: unknown) {
    const id = (detail as { id?: unknown } | null)?.id;
    if (typeof id === 'string') {
      const key = `${topic} ${id}`;
      if (delivered.has(key)) return;
      delivered.add(key);
      if (delivered.size > REMEMBERED) delivered.delete(delivered.values().next().value!);
    }
    for (const listener of [...(listeners.get(topic) ?? [])]) {
      const event = new CustomEvent(topic, { detail });
      if (typeof listener === 'function') listener(event);
      else listener.handleEvent(event);
    }
  }
  /** What a subscriber here would have received through Redis: the same JSON. */
  const deliverHere = (topic: string, message: string) => deliver(topic, message === '' ? null : JSON.parse(message));

  // The Redis target's clients: commands never wait, and a failure falls back instead of
  // rejecting into the void.
  const publishClient = {
    publish(topic: string, message: string) {
      answerWithin(publisher.client.publish(topic, message), 1_000).then(
        () => publisher.answered(),
        (err) => {
          publisher.failed(err);
          deliverHere(topic, message);
        },
      );
    },
  };
  const subscribeClient = {
    on: (event: 'message', handler: (channel: string, message: string) => void) => subscriber.client.on(event, handler),
    subscribe(topic: string) {
      topics.add(topic);
      if (subscriber.usable()) subscriber.client.subscribe(topic).catch((err) => subscriber.failed(err, true));
    },
    unsubscribe(topic: string) {
      topics.delete(topic);
      if (subscriber.client.status === 'ready') subscriber.client.unsubscribe(topic).catch(() => {});
    },
  };
  const redisTarget = createRedisEventTarget<CustomEvent>({ publishClient: publishClient as unknown as Redis, subscribeClient: subscribeClient as unknown as Redis });
  const fromRedis = (event: CustomEvent) => deliver(event.type, event.detail);

  const target = {
    addEventListener(topic: string, listener: EventListenerOrEventListenerObject | null) {
      if (!listener) return;
      let set = listeners.get(topic);
      if (!set) {
        listeners.set(topic, (set = new Set()));
        redisTarget.addEventListener(topic, fromRedis);
      }
      set.add(listener);
    },
    removeEventListener(topic: string, listener: EventListenerOrEventListenerObject | null) {
      const set = listeners.get(topic);
      if (!listener || !set?.delete(listener) || set.size > 0) return;
      listeners.delete(topic);
      redisTarget.removeEventListener(topic, fromRedis);
    },
    dispatchEvent(event: Event) {
      const { type: topic, detail } = event as CustomEvent;
      const viaRedis = publisher.usable();
      if (viaRedis) redisTarget.dispatchEvent(event as CustomEvent);
      // Our own subscription would bring it back; without one, deliver it here.
      if (!viaRedis || !subscriber.usable()) deliverHere(topic, detail === undefined ? '' : JSON.stringify(detail));
      return true;
    },
  };
  return { eventTarget: target as EventTargetOf<typeof target>, deliver };
}

/**
 * Of a pubsub over Redis: whether this process is cut off from the others (it cannot both
 * send them events and receive theirs), and delivery to its own subscribers only.
 */
const isolation = new WeakMap<object, { isolated(): boolean; deliverHere(topic: string, event: PresentedEvent): void }>();

/** How far back a relay cut off from Redis reads events other relays published (their commits may land out of order). */
const TAIL_OVERLAP_MS = 2_000;

type EventRecord = ClaimEventsRow;

/**
 * Hands committed events to live subscribers. Each API process runs one; they share the work
 * through FOR UPDATE SKIP LOCKED, and Redis carries each event to every process.
 *
 * While this process is cut off from Redis, the relay of another process may claim an event
 * caused here, and could not bring it to the subscribers here. So meanwhile each relay also
 * reads what the others published (from PostgreSQL, a little back in time each pass) and hands
 * it to this process's subscribers; the pubsub drops what they already received.
 */
export async function startEventRelay(db: Database, pubsub: EventPubSub, pollMs = 1_000) {
  let running = false;
  let again = false;
  let stopped = false;
  const local = isolation.get(pubsub);
  /** While cut off: the latest publishedAt read from the others. */
  let tailedUntil: Date | null = null;

  // Up to 200 unpublished events (src/db/sql/platform/claim-events.sql); relays of several processes share them through SKIP LOCKED.
  const platform = platformSql(db);
  const claim = () => platform.run(claimEvents, {});

  const deliverRow = (row: EventRecord, send: (topic: string, event: PresentedEvent) => void) =>
    send(eventTopic(row.businessId, row.livemode), { ...presentEvent(row), booking_id: row.bookingId });

  async function publishDue() {
    do {
      again = false;
      let full: boolean;
      do {
        const rows = await claim();
        rows.sort((a, b) => (a.id < b.id ? -1 : 1));
        for (const row of rows) deliverRow(row, (topic, event) => pubsub.publish(topic, event));
        full = rows.length === 200;
      } while (full && !stopped);
      if (local?.isolated()) await tailOthers(local.deliverHere);
      else tailedUntil = null;
    } while (again && !stopped);
  }

  async function tailOthers(deliverHere: (topic: string, event: PresentedEvent) => void) {
    if (!tailedUntil) {
      const [{ since }] = await db.prisma.$queryRaw<{ since: Date }[]>`SELECT now() - interval '5 seconds' AS since`;
      tailedUntil = since;
    }
    let since = new Date(tailedUntil.getTime() - TAIL_OVERLAP_MS);
    let afterId = '';
    while (!stopped) {
      const rows = await db.prisma.$queryRaw<(EventRecord & { publishedAt: Date })[]>`
        SELECT id, "businessId", livemode, type, "bookingId", data, "requestId", "idempotencyKey", "createdAt", "publishedAt" FROM "Event"
         WHERE "publishedAt" >= ${since.toISOString()}::timestamptz AND ("publishedAt" > ${since.toISOString()}::timestamptz OR id > ${afterId})
         ORDER BY "publishedAt", id LIMIT 200`;
      for (const row of rows) {
        deliverRow(row, deliverHere);
        if (row.publishedAt > tailedUntil) tailedUntil = row.publishedAt;
      }
      if (rows.length < 200) break;
      since = rows[rows.length - 1].publishedAt;
      afterId = rows[rows.length - 1].id;
    }
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    publishDue()
      .catch((err) => !stopped && log.error({ err }, 'event relay failed'))
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
