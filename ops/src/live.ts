import { createClient } from 'graphql-ws/client';
import { gql, NO_ACCESS, type OpsSession } from './api.ts';

export interface FeedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: { object?: { id?: string; object?: string; state?: string } };
}

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'signed_out';

const FIELDS = 'id type createdAt data';
const SUBSCRIPTION = `subscription OpsEvents { events { ${FIELDS} } }`;
const EVENTS_PAGE = `query OpsEventsSince($after: String, $createdAfter: DateTime, $first: Int!) {
  events(first: $first, after: $after, createdAfter: $createdAfter) { pageInfo { hasNextPage endCursor } edges { node { ${FIELDS} } } }
}`;
type EventsPage = { events: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { node: FeedEvent }[] } };

/** How far back a catch-up reaches before the newest event seen (events of one instant may land in any order). */
const CATCH_UP_OVERLAP_MS = 5_000;
/** The feed's first page, before any event was seen. */
const FIRST_PAGE = 30;
/** A catch-up reads at most this many events (newest first); the feed shows fewer anyway. */
const CATCH_UP_LIMIT = 1_000;

/**
 * The business's events as they happen, from the `events` subscription over graphql-ws (the
 * session cookie authenticates the socket; its CSRF token goes in the connection parameters).
 * When the connection drops, graphql-ws reconnects; every (re)connection catches up from the
 * `events` query (created after the newest event seen, page by page), so nothing that happened
 * while disconnected is missed. Events are deduplicated by id.
 */
export function liveEvents(session: OpsSession, on: { events(events: FeedEvent[], via: 'live' | 'catch_up'): void; status(status: LiveStatus): void }) {
  const seen = new Set<string>();
  let newest: string | null = null;
  let stopped = false;

  const take = (events: FeedEvent[], via: 'live' | 'catch_up') => {
    const fresh = events.filter((e) => !seen.has(e.id));
    for (const e of fresh) {
      seen.add(e.id);
      if (newest === null || e.createdAt > newest) newest = e.createdAt;
    }
    if (fresh.length) on.events(fresh, via);
  };

  let catching: Promise<void> | null = null;
  const catchUp = () => (catching ??= (async () => {
    try {
      const since = newest === null ? null : new Date(Date.parse(newest) - CATCH_UP_OVERLAP_MS).toISOString();
      let after: string | null = null;
      let read = 0;
      for (;;) {
        const page: EventsPage | typeof NO_ACCESS = await gql<EventsPage>(session, EVENTS_PAGE, { after, createdAfter: since, first: since === null ? FIRST_PAGE : 100 });
        if (page === NO_ACCESS || stopped) return;
        take(page.events.edges.map((e) => e.node), 'catch_up');
        read += page.events.edges.length;
        // The first page of a fresh feed is enough; a catch-up reads everything since.
        if (since === null || !page.events.pageInfo.hasNextPage || read >= CATCH_UP_LIMIT) return;
        after = page.events.pageInfo.endCursor;
      }
    } catch (err) {
      console.warn('ops: catching up on events failed', err);
    } finally {
      catching = null;
    }
  })());

  let timer: ReturnType<typeof setTimeout> | undefined;
  const client = createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: { csrfToken: session.csrf_token },
    lazy: false,
    keepAlive: 10_000,
    retryAttempts: Number.POSITIVE_INFINITY,
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** retries, 5_000))),
    // A refused session (signed out, expired) is final; anything else is worth another try.
    shouldRetry: (event) => !(event instanceof CloseEvent && (event.code === 4401 || event.code === 4403)),
    on: {
      connected: () => {
        on.status('live');
        void catchUp();
        // The subscription is registered on the server a moment after the connection opens: a
        // second look closes the gap between the two.
        clearTimeout(timer);
        timer = setTimeout(() => void catchUp(), 2_000);
      },
      closed: (event) => {
        clearTimeout(timer);
        if (stopped) return;
        const code = (event as CloseEvent | undefined)?.code;
        on.status(code === 4401 || code === 4403 ? 'signed_out' : 'reconnecting');
      },
    },
  });
  on.status('connecting');
  const unsubscribe = client.subscribe<{ events: FeedEvent }>({ query: SUBSCRIPTION }, {
    next: (result) => {
      if (result.data?.events) take([result.data.events], 'live');
    },
    error: (err) => console.warn('ops: event subscription ended', err),
    complete: () => {},
  });

  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      unsubscribe();
      void client.dispose();
    },
  };
}
