// Child process: the bare baseline of the subscribers bench. A node:http + `ws` server that
// speaks just enough of the graphql-ws protocol (connection_init -> connection_ack,
// subscribe -> next, ping -> pong) for the stock graphql-ws client, over pg:
//
//   POST /events  one transaction: INSERT the event (a booking-shaped JSON built from the
//                 request body) into bench_event and pg_notify('bench_event'); 201 after commit.
//   LISTEN        on each NOTIFY: UPDATE bench_event SET published_at = now() WHERE
//                 published_at IS NULL RETURNING ... (as the project's relay claims events),
//                 serialize each event once and send it to every socket subscribed to its
//                 business, as a graphql-ws `next` frame with that socket's subscription id.
//
// No key check, no per-subscriber filtering or execution: the floor of the fan-out.
// Env: DATABASE_URL (required), PORT (0 = any). Prints "READY <port>" when listening.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { WebSocketServer, type WebSocket } from 'ws';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
await pool.query(`CREATE TABLE IF NOT EXISTS bench_event (id text PRIMARY KEY, business_id text NOT NULL, payload jsonb NOT NULL, published_at timestamptz)`);

/** Subscribers per business: socket -> its subscription id. */
const subscribers = new Map<string, Map<WebSocket, string>>();

const server = http.createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/events') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  const businessId = String(body.business_id ?? 'biz');
  const id = `evt_${randomUUID().replace(/-/g, '')}`;
  const objectId = `bk_${randomUUID().replace(/-/g, '')}`;
  const event = {
    id,
    type: 'booking.created',
    apiVersion: '2026-11-01',
    createdAt: new Date().toISOString(),
    livemode: false,
    data: { object: { id: objectId, object: 'booking', livemode: false, state: 'pending', ...body } },
    request: { id: `req_${randomUUID().replace(/-/g, '')}`, idempotency_key: null },
  };
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO bench_event (id, business_id, payload) VALUES ($1, $2, $3)', [id, businessId, event]);
    await client.query(`SELECT pg_notify('bench_event', '')`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  const out = JSON.stringify({ id, object: objectId });
  res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }).end(out);
});

// The relay: a dedicated LISTEN connection; claims due events and fans them out.
const listener = new pg.Client({ connectionString: databaseUrl });
await listener.connect();
let running = false;
let again = false;
async function publishDue() {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    do {
      again = false;
      const { rows } = await pool.query<{ id: string; business_id: string; payload: unknown }>(
        `UPDATE bench_event SET published_at = now() WHERE id IN (SELECT id FROM bench_event WHERE published_at IS NULL ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED) RETURNING id, business_id, payload`,
      );
      for (const row of rows) {
        const subs = subscribers.get(row.business_id);
        if (!subs) continue;
        const tail = `","type":"next","payload":{"data":{"events":${JSON.stringify(row.payload)}}}}`;
        for (const [socket, subId] of subs) socket.send(`{"id":${JSON.stringify(subId).slice(0, -1)}${tail}`);
      }
    } while (again);
  } finally {
    running = false;
  }
}
listener.on('notification', () => void publishDue().catch((err) => console.error('bare relay failed', err)));
await listener.query('LISTEN bench_event');

const wss = new WebSocketServer({ server, path: '/graphql' });
wss.on('connection', (socket) => {
  let business: string | null = null;
  socket.on('message', (data) => {
    const msg = JSON.parse(data.toString()) as { type: string; id?: string; payload?: { authorization?: string; variables?: { business?: string } } };
    switch (msg.type) {
      case 'connection_init':
        socket.send('{"type":"connection_ack"}');
        break;
      case 'ping':
        socket.send('{"type":"pong"}');
        break;
      case 'subscribe': {
        business = msg.payload?.variables?.business ?? 'biz';
        let subs = subscribers.get(business);
        if (!subs) subscribers.set(business, (subs = new Map()));
        subs.set(socket, msg.id!);
        break;
      }
      case 'complete':
        if (business) subscribers.get(business)?.delete(socket);
        break;
    }
  });
  socket.on('close', () => {
    if (business) subscribers.get(business)?.delete(socket);
  });
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : ''}\n`);
});

const shutdown = async () => {
  const force = setTimeout(() => process.exit(1), 3_000);
  force.unref();
  for (const c of wss.clients) c.terminate();
  await listener.end().catch(() => {});
  await pool.end().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.on('disconnect', shutdown);
