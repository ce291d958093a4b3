// Child process of the subscribers bench: opens COUNT graphql-ws clients (the `graphql-ws`
// client over `ws`), one connection and one subscription each, and reports over IPC when an
// event has reached all of them, then every arrival time on request.
//
// Times are process.hrtime (CLOCK_MONOTONIC, shared by every process of the machine) in ms,
// so the parent can subtract its own readings from them.
//
// IPC in:  { type: 'start', url, authorization, count, query, variables }
//          { type: 'report' }   -> { type: 'arrivals', arrivals: Record<objectId, number[]>, size }
// IPC out: { type: 'connected', count } once every connection is acknowledged,
//          { type: 'complete', eventId } once all COUNT subscribers received a booking.created
//          event (identified by its booking's id, data.object.id),
//          { type: 'error', message } when a subscription fails.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

const now = () => Number(process.hrtime.bigint()) / 1e6;

interface Start { type: 'start'; url: string; authorization: string; count: number; query: string; variables?: Record<string, unknown> }

const send = (message: unknown) => process.send!(message);
const arrivals = new Map<string, number[]>();
const clients: Client[] = [];
/** Characters of the first booking.created result, to compare the two servers' payloads. */
let size = 0;

function start(msg: Start) {
  let connected = 0;
  for (let i = 0; i < msg.count; i++) {
    const client = createClient({
      url: msg.url,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: msg.authorization },
      retryAttempts: 0,
      lazy: false,
      keepAlive: 0,
      onNonLazyError: (err) => send({ type: 'error', message: `connection failed: ${String((err as { reason?: string })?.reason ?? err)}` }),
    });
    client.on('connected', () => {
      if (++connected === msg.count) send({ type: 'connected', count: connected });
    });
    clients.push(client);
    client.subscribe<{ events?: { type: string; data: { object: { id: string } } } }>(
      { query: msg.query, variables: msg.variables },
      {
        next: (result) => {
          const t = now();
          const event = result.data?.events;
          const id = event?.data?.object?.id;
          if (!id) {
            send({ type: 'error', message: `unexpected result: ${JSON.stringify(result).slice(0, 300)}` });
            return;
          }
          if (event.type !== 'booking.created') return;
          if (!size) size = JSON.stringify(result).length;
          let times = arrivals.get(id);
          if (!times) arrivals.set(id, (times = []));
          times.push(t);
          if (times.length === msg.count) send({ type: 'complete', eventId: id });
        },
        error: (err) => send({ type: 'error', message: `subscription failed: ${JSON.stringify(err).slice(0, 300)}` }),
        complete: () => {},
      },
    );
  }
}

process.on('message', (msg: Start | { type: 'report' }) => {
  if (msg.type === 'start') start(msg);
  else if (msg.type === 'report') send({ type: 'arrivals', arrivals: Object.fromEntries(arrivals), size });
});
process.on('disconnect', () => {
  for (const c of clients) void c.dispose();
  process.exit(0);
});
