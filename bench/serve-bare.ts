// Child process: the baseline for the vehicle-read bench. Bare node:http + a pg Pool of the
// same size as the project's, doing the same work for GET /v1/vehicles/:id: the project's
// authentication (bare-http.ts) -> the same "Vehicle" SELECT -> JSON with snake_case keys.
// Env: DATABASE_URL (required), PORT (0 = any free port). Prints "READY <port>" when listening.
import { createServer } from 'node:http';
import { bareAuthenticator, barePool, send, serveBare } from './bare-http.ts';

const pool = barePool();
const authenticate = bareAuthenticator(pool);

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
    weekend_rate_cents: v.weekendRateCents,
    weekend_days: v.weekendDays,
    seasonal_rates: v.seasonalRates,
    location: v.location,
    delivery_options: v.deliveryOptions,
    access_method: v.accessMethod,
    minimum_age: v.minimumAge,
    photos: v.photos,
    features: v.features,
    metadata: v.metadata,
    created_at: v.createdAt instanceof Date ? v.createdAt.toISOString() : v.createdAt,
    // The vehicle's table: an active vehicle may be archived, an archived one goes nowhere.
    next_states: v.status === 'active' ? ['archived'] : [],
  };
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
serveBare(server, pool);
