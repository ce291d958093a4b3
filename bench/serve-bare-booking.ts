// Child process: the baseline for the booking-create bench. Bare node:http + a pg Pool of the
// same size as the project's, running the same work for POST /v1/bookings as the project, one
// statement for each of its statements: the project's authentication (bare-http.ts); the
// vehicle, the business's settings, the customer and the vehicle's lapsed holds read outside
// the transaction; then in one transaction the vehicle's lock and the check for a committed
// overlap, the booking (the exclusion constraint refuses an overlap: 409), its payment and deposit, the booking.created event,
// the webhook endpoints that want it and their outbox rows (the database's trigger sends the
// outbox NOTIFY for both sides); after it, the
// audit record. Like the project's event relay, a LISTEN connection is woken by that NOTIFY
// and claims the new events (the same UPDATE ... RETURNING), presenting each as the live
// event stream would carry it. Pricing (in the business's time zone), settings (of the key's
// environment) and the event's booking object use the project's own pure functions, so both
// sides compute the same answer; the SQL is written by hand, which is the point of comparison.
// Env: DATABASE_URL (required), PORT (0 = any free port). Prints "READY <port>" when listening.
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import pg from 'pg';
import { presentBooking } from '../src/domain/bookings/booking.fields.ts';
import { HOLD_STATES } from '../src/domain/bookings/booking-holds.ts';
import { RELEASED_STATES } from '../src/domain/bookings/booking-state.ts';
import { readSettings } from '../src/domain/business/business-settings.ts';
import { OUTBOX_CHANNEL, presentEvent } from '../src/domain/events/event.service.ts';
import { PRICED_FIELDS, priceRental } from '../src/domain/quotes/pricing.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { bareAuthenticator, barePool, send, serveBare } from './bare-http.ts';

const pool = barePool();
const authenticate = bareAuthenticator(pool);
const HOLD_MINUTES = 30;
/** The vehicle's columns the project reads to book it: its status and what prices it. */
const PRICED_COLUMNS = Object.keys(PRICED_FIELDS).map((c) => `"${c}"`).join(', ');

const server = createServer((req, res) => {
  void (async () => {
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/bookings') return send(res, 404, { error: { type: 'invalid_request', code: 'route_not_found' } });
    let text = '';
    for await (const chunk of req) text += chunk;
    const principal = await authenticate(req.headers.authorization);
    if (!principal) return send(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key' } });
    const input = JSON.parse(text) as { vehicle_id: string; customer_id: string; start_at: string; end_at: string; unlimited_miles?: boolean };
    const period = { startAt: new Date(input.start_at), endAt: new Date(input.end_at) };
    const tenant = [principal.businessId, principal.livemode];
    const now = new Date();

    const vehicle = (await pool.query(`SELECT id, status, ${PRICED_COLUMNS} FROM "Vehicle" WHERE id = $1 AND "businessId" = $2 AND livemode = $3`, [input.vehicle_id, ...tenant])).rows[0];
    if (!vehicle) return send(res, 404, { error: { type: 'invalid_request', code: 'resource_missing', param: 'vehicle_id' } });
    if (vehicle.status !== 'active') return send(res, 409, { error: { type: 'invalid_request', code: 'vehicle_archived', param: 'vehicle_id' } });
    const business = (await pool.query(`SELECT ${principal.livemode ? 'settings' : '"sandboxSettings"'} AS settings, currency, timezone FROM "Business" WHERE id = $1`, [principal.businessId])).rows[0];
    const settings = readSettings(business?.settings);
    const price = priceRental(vehicle, period, input.unlimited_miles ?? false, { timeZone: business?.timezone ?? 'UTC' });
    const customer = (await pool.query('SELECT id FROM "Customer" WHERE id = $1 AND "businessId" = $2 AND livemode = $3', [input.customer_id, ...tenant])).rows[0];
    if (!customer) return send(res, 404, { error: { type: 'invalid_request', code: 'resource_missing', param: 'customer_id' } });
    // Lapsed holds of this vehicle would be expired first (there are none in the bench).
    await pool.query(
      'SELECT * FROM "Booking" WHERE "vehicleId" = $1 AND "businessId" = $2 AND livemode = $3 AND state = ANY($4::"BookingState"[]) AND "holdExpiresAt" <= $5 ORDER BY "holdExpiresAt" LIMIT 100',
      [vehicle.id, ...tenant, [...HOLD_STATES], now],
    );

    const client = await pool.connect();
    let booking: Record<string, unknown>;
    try {
      await client.query('BEGIN');
      // The vehicle's new periods queue (a transaction-scoped advisory lock on the tenant and
      // vehicle, hashed as the project's is), then a committed overlap is refused before the insert.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${principal.businessId}:${principal.livemode}:vehicle-calendar:${vehicle.id}`]);
      const clash = await client.query(
        `SELECT id FROM "Booking" WHERE "vehicleId" = $1 AND "businessId" = $2 AND livemode = $3 AND state <> ALL($4::"BookingState"[]) AND "startAt" < $6 AND "endAt" > $5
            AND NOT (state = ANY($7::"BookingState"[]) AND "holdExpiresAt" <= $8) LIMIT 1`,
        [vehicle.id, ...tenant, [...RELEASED_STATES], period.startAt, period.endAt, [...HOLD_STATES], now],
      );
      if (clash.rowCount) {
        await client.query('ROLLBACK');
        return send(res, 409, { error: { type: 'invalid_request', code: 'vehicle_unavailable' } });
      }
      const bookingId = newId('booking');
      const depositRequired = price.depositCents > 0 && settings.security_deposit_defaults.required;
      const gate = (required: boolean) => (required ? 'pending' : 'not_required');
      try {
        booking = (
          await client.query(
            `INSERT INTO "Booking" (id, "businessId", livemode, "vehicleId", "customerId", "quoteId", state, "startAt", "endAt", "unlimitedMiles",
               days, currency, "dailyRateCents", "rentalCents", "unlimitedMilesFeeCents", "deliveryFeeCents", "depositCents", "includedMiles", "extraMileFeeCents", "totalCents", "dayRates",
               "paymentGate", "identityGate", "agreementGate", "depositGate", "insuranceGate", "holdExpiresAt", metadata, "updatedAt")
             VALUES ($1, $2, $3, $4, $5, NULL, 'pending_payment', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, 'pending', $20, $21, $22, $23, $24, '{}', now())
             RETURNING *`,
            [
              bookingId, ...tenant, vehicle.id, customer.id, period.startAt, period.endAt, input.unlimited_miles ?? false,
              price.days, price.currency, price.dailyRateCents, price.rentalCents, price.unlimitedMilesFeeCents, price.deliveryFeeCents, price.depositCents, price.includedMiles, price.extraMileFeeCents, price.totalCents, JSON.stringify(price.dayRates),
              gate(settings.identity_requirements.required), gate(settings.agreement_requirements.required), gate(depositRequired), gate(settings.insurance_requirements.required),
              new Date(now.getTime() + HOLD_MINUTES * 60_000),
            ],
          )
        ).rows[0];
      } catch (err) {
        await client.query('ROLLBACK');
        if ((err as { code?: string }).code === '23P01') return send(res, 409, { error: { type: 'invalid_request', code: 'vehicle_unavailable' } });
        throw err;
      }
      await client.query('INSERT INTO "Payment" (id, "businessId", livemode, "bookingId", "amountCents", currency, "updatedAt") VALUES ($1, $2, $3, $4, $5, $6, now())', [newId('payment'), ...tenant, bookingId, price.totalCents, price.currency]);
      await client.query('INSERT INTO "Deposit" (id, "businessId", livemode, "bookingId", "amountCents", currency, state, "updatedAt") VALUES ($1, $2, $3, $4, $5, $6, $7, now())', [newId('deposit'), ...tenant, bookingId, price.depositCents, price.currency, depositRequired ? 'required' : 'not_required']);
      const event = (
        await client.query('INSERT INTO "Event" (id, "businessId", livemode, type, "bookingId", data) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, type, "createdAt"', [
          newId('event'), ...tenant, 'booking.created', bookingId, { object: presentBooking(booking as never) },
        ])
      ).rows[0];
      const endpoints = (await client.query(`SELECT id FROM "WebhookEndpoint" WHERE "businessId" = $1 AND livemode = $2 AND enabled AND ('*' = ANY("enabledEvents") OR $3 = ANY("enabledEvents"))`, [...tenant, event.type])).rows;
      if (endpoints.length) {
        const values: unknown[] = [];
        const rows = endpoints.map((e, i) => {
          values.push(newId('webhookMessage'), ...tenant, e.id, event.id, event.type, event.createdAt);
          const o = i * 7;
          return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}, $${o + 7}, now())`;
        });
        await client.query(`INSERT INTO "WebhookMessage" (id, "businessId", livemode, "endpointId", "eventId", "eventType", "nextAttemptAt", "updatedAt") VALUES ${rows.join(', ')}`, values);
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
    await pool.query('INSERT INTO "AuditLog" (id, "businessId", livemode, "requestId", "apiKeyId", method, path, operation, status, "bookingId", objects) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [
      newId('audit'), ...tenant, newId('request'), principal.keyId, 'POST', '/v1/bookings', 'createBooking', 201, booking.id, [vehicle.id, input.customer_id, booking.id],
    ]);
    send(res, 201, presentBooking(booking as never));
  })().catch((err) => {
    console.error(err);
    if (!res.headersSent) send(res, 500, { error: { type: 'internal_error' } });
  });
});

// The relay: woken by the outbox NOTIFY (and every second), claims what is unpublished.
const live = new EventEmitter();
const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
let running = false;
let again = false;
async function publishDue(): Promise<void> {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    do {
      again = false;
      let full: boolean;
      do {
        const { rows } = await pool.query(
          `UPDATE "Event" SET "publishedAt" = now() WHERE id IN (SELECT id FROM "Event" WHERE "publishedAt" IS NULL ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED)
           RETURNING id, "businessId", livemode, type, "bookingId", data, "requestId", "idempotencyKey", "createdAt"`,
        );
        rows.sort((a, b) => (a.id < b.id ? -1 : 1));
        for (const row of rows) live.emit(`events:${row.businessId}:${row.livemode ? 'live' : 'test'}`, { ...presentEvent(row), booking_id: row.bookingId });
        full = rows.length === 200;
      } while (full);
    } while (again);
  } finally {
    running = false;
  }
}
const kick = () => void publishDue().catch((err) => console.error('bare relay failed', err));
listener.on('notification', kick);
await listener.connect();
await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
setInterval(kick, 1_000).unref();

serveBare(server, pool);
