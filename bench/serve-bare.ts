// Child process: the baseline for the vehicle-read bench. Bare node:http + a pg Pool of the
// same size as the project's, doing the same work for GET /v1/vehicles/:id: Bearer key ->
// SHA-256 -> "ApiKey" lookup (cached 5 s, as the project caches principals) -> the same
// "Vehicle" SELECT -> JSON with snake_case keys.
// Env: DATABASE_URL (required), PORT (0 = any free port). Prints "READY <port>" when listening.
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 20) });

interface Principal { businessId: string; livemode: boolean; keyId: string }
const CACHE_MS = 5_000;
const cache = new Map<string, { principal: Principal; until: number }>();

async function authenticate(header: string | undefined): Promise<Principal | null> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const hash = createHash('sha256').update(m[1]).digest('hex');
  const hit = cache.get(hash);
  if (hit && hit.until > Date.now()) return hit.principal;
  const { rows } = await pool.query('SELECT id, "businessId", livemode, "revokedAt" FROM "ApiKey" WHERE "secretHash" = $1', [hash]);
  const row = rows[0];
  if (!row || row.revokedAt) return null;
  const principal = { businessId: row.businessId, livemode: row.livemode, keyId: row.id };
  cache.set(hash, { principal, until: Date.now() + CACHE_MS });
  return principal;
}

function present(v: Record<string, any>) {
  return {
    id: v.id,
    object: 'vehicle',
    livemode: v.livemode,
    name: v.name,
    make: v.make,
    model: v.model,
    year: v.year,
    status: v.status,
    currency: v.currency,
    daily_rate_cents: v.dailyRateCents,
    deposit_cents: v.depositCents,
    included_miles: v.includedMiles,
    extra_mile_fee_cents: v.extraMileFeeCents,
    unlimited_miles_daily_cents: v.unlimitedMilesDailyCents,
    location: v.location,
    delivery_options: v.deliveryOptions,
    access_method: v.accessMethod,
    minimum_age: v.minimumAge,
    photos: v.photos,
    features: v.features,
    metadata: v.metadata,
    created_at: v.createdAt instanceof Date ? v.createdAt.toISOString() : v.createdAt,
  };
}

function send(res: import('node:http').ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'request-id': `req_${randomUUID()}` });
  res.end(text);
}

const ROUTE = /^\/v1\/vehicles\/([^/?]+)$/;
const server = createServer((req, res) => {
  void (async () => {
    const path = (req.url ?? '').split('?')[0];
    const m = req.method === 'GET' ? ROUTE.exec(path) : null;
    if (!m) return send(res, 404, { error: { type: 'invalid_request', code: 'route_not_found' } });
    const principal = await authenticate(req.headers.authorization);
    if (!principal) return send(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key' } });
    const { rows } = await pool.query('SELECT * FROM "Vehicle" WHERE id = $1 AND "businessId" = $2 AND livemode = $3', [
      decodeURIComponent(m[1]),
      principal.businessId,
      principal.livemode,
    ]);
    if (!rows[0]) return send(res, 404, { error: { type: 'invalid_request', code: 'resource_missing' } });
    send(res, 200, present(rows[0]));
  })().catch((err) => {
    console.error(err);
    if (!res.headersSent) send(res, 500, { error: { type: 'internal_error' } });
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : ''}\n`);
});

let closing = false;
const shutdown = async () => {
  if (closing) return;
  closing = true;
  const force = setTimeout(() => process.exit(1), 5_000);
  force.unref();
  server.closeAllConnections();
  server.close();
  await pool.end().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.on('disconnect', shutdown);
