// Child process: the baseline for the bookings-page bench. Bare node:http + a pg Pool, doing
// the page's work for POST /graphql: the project's authentication (bare-http.ts), the body's
// JSON read, one statement joining Booking to Vehicle, Customer and (LEFT) Payment for the
// `first` + 1 newest bookings of the key's business and environment, and the same GraphQL JSON.
// Env: DATABASE_URL (required), PORT (0 = any free port). Prints "READY <port>" when listening.
import { createServer } from 'node:http';
import { bareAuthenticator, barePool, send, serveBare } from './bare-http.ts';

const pool = barePool();
const authenticate = bareAuthenticator(pool);

const PAGE_SQL = `
  SELECT b.id, b.state,
         v.id AS v_id, v.name AS v_name, c.id AS c_id, c.name AS c_name, p.id AS p_id, p.state AS p_state
    FROM "Booking" b
    JOIN "Vehicle" v ON v.id = b."vehicleId"
    JOIN "Customer" c ON c.id = b."customerId"
    LEFT JOIN "Payment" p ON p."bookingId" = b.id
   WHERE b."businessId" = $1 AND b.livemode = $2
   ORDER BY b.id DESC
   LIMIT $3`;

const server = createServer((req, res) => {
  void (async () => {
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/graphql') return send(res, 404, { error: { type: 'invalid_request', code: 'route_not_found' } });
    const principal = await authenticate(req.headers.authorization);
    if (!principal) return send(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key' } });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const first = Number((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { variables?: { first?: number } }).variables?.first ?? 10);
    const { rows } = await pool.query(PAGE_SQL, [principal.businessId, principal.livemode, first + 1]);
    const edges = rows.slice(0, first).map((r) => ({
      node: {
        id: r.id, state: r.state,
        vehicle: { id: r.v_id, name: r.v_name },
        customer: { id: r.c_id, name: r.c_name },
        payment: r.p_id === null ? null : { id: r.p_id, state: r.p_state },
      },
    }));
    send(res, 200, { data: { bookings: { edges, pageInfo: { hasNextPage: rows.length > first } } } });
  })().catch((err) => {
    console.error(err);
    if (!res.headersSent) send(res, 500, { error: { type: 'internal_error' } });
  });
});
serveBare(server, pool);
