// A platform's year of traffic, generated inside a throwaway PostgreSQL database by SQL
// (generate_series), for the growth bench and the index test: businesses with their fleets,
// customers and a webhook endpoint each, and over `days` days the bookings, the events each
// booking's lifecycle wrote, their webhook messages and delivery attempts, and the audit
// records of the requests, all as if nothing had ever been deleted.
//
// The shape: booking j belongs to business j mod B, its n-th vehicle and customer in turn;
// creation times rise evenly with j over the period, and each vehicle's bookings are
// placed a week apart and last at most five days and a few hours, so none overlap (the
// exclusion constraint is rebuilt after the load, which checks it). States follow time
// (completed in the past, active now, booked ahead). Each booking has EVENTS_PER_BOOKING
// events, one webhook message each (delivered; one in a hundred after a failed first
// attempt, so 1.01 attempts a message) and AUDIT_PER_BOOKING audit records, their times
// spread between this booking's and the next one's. Every id sorts by creation as the
// project's own ids do, and below them (seeded ids are zero-padded numbers, the project's
// start with the year's ULID time), so what the API creates is the newest. Everything is in
// test mode, where the bench's key acts. The first business is the one given (made by the
// project's own code, with keys); the others are rows alone.
import pg from 'pg';

export const EVENTS_PER_BOOKING = 10;
export const AUDIT_PER_BOOKING = 10;

export interface PlatformSize {
  businesses: number;
  vehiclesPerBusiness: number;
  customersPerBusiness: number;
  bookings: number;
  /** How far back the data goes (the newest rows are `now`). */
  days: number;
}

export interface PlatformCounts {
  bookings: number;
  events: number;
  webhookMessages: number;
  webhookDeliveries: number;
  auditRecords: number;
}

/** The lifecycle's event types, in the order a booking writes them. */
const EVENT_TYPES = ['booking.created', 'checkout.started', 'payment.succeeded', 'booking.confirmed', 'deposit.secured', 'agreement.signed', 'pickup.ready', 'rental.started', 'return.submitted', 'rental.completed'];

const TABLES = ['Vehicle', 'Customer', 'Booking', 'Event', 'WebhookMessage', 'WebhookDelivery', 'AuditLog'];

const BIG_TABLES = ['Event', 'WebhookMessage', 'WebhookDelivery', 'AuditLog'];

/** A business's id in the statements: the tenant's for business 0. */
const biz = (b: string) => `CASE WHEN ${b} = 0 THEN $1::text ELSE 'biz_' || lpad((${b})::text, 22, '0') END`;
/** The creation time of booking number x (fractional: its events and records sit between). */
const at = (x: string) => `$2::timestamptz - $7::int * interval '1 day' + (${x}) * ($7::int * interval '1 day' / $6::int)`;
/** `sql` with $1 to $7 (the tenant, now, businesses, vehicles, customers, bookings, days) written in. */
const fill = (sql: string, p: string[]) => sql.replace(/\$(\d)/g, (_, d: string) => p[Number(d) - 1]);

/** $1 to $7 of the statements. */
function statementParams(tenantBusinessId: string, size: PlatformSize, now: Date): string[] {
  return [`'${tenantBusinessId.replace(/'/g, "''")}'`, `'${now.toISOString()}'`, ...[size.businesses, size.vehiclesPerBusiness, size.customersPerBusiness, size.bookings, size.days].map((x) => String(Math.trunc(x)))];
}

/**
 * The statements filling the four big tables: the events of every booking, their webhook
 * messages and delivery attempts, and the audit records. `tag` goes into every id (after the
 * prefix): '' for the generated platform; another tag adds the same rows again as new ones.
 */
function bigTableInserts(tag: string) {
  tag = `'${tag.replace(/[^a-z0-9]/g, '')}'`;
  const events = `INSERT INTO "Event" (id, "businessId", livemode, type, "bookingId", data, "requestId", "publishedAt", "createdAt")
    SELECT 'evt_' || ${tag} || lpad(n::text, 22, '0'), ${biz('(n / ' + EVENTS_PER_BOOKING + ') % $3::int')}, false,
           (ARRAY[${EVENT_TYPES.map((t) => `'${t}'`).join(',')}])[1 + n % ${EVENTS_PER_BOOKING}],
           'bk_' || lpad((n / ${EVENTS_PER_BOOKING})::text, 23, '0'),
           payload.data,
           'req_' || lpad(n::text, 22, '0'), t, t
      FROM (SELECT n, ${at(`n::float8 / ${EVENTS_PER_BOOKING}`)} AS t FROM generate_series(0, $6::int * ${EVENTS_PER_BOOKING} - 1) AS n) e,
           -- One payload for all (a short booking's), made once: building one a row costs minutes at ten million.
           (SELECT jsonb_build_object('object', jsonb_build_object('id', 'bk_' || lpad('0', 23, '0'), 'object', 'booking', 'livemode', false, 'state', 'booked',
              'vehicle_id', 'veh_' || lpad('0', 22, '0'), 'customer_id', 'cus_' || lpad('0', 22, '0'), 'start_at', '2026-01-02T10:00:00.000Z', 'end_at', '2026-01-05T10:00:00.000Z',
              'total_cents', 18000, 'currency', 'usd', 'metadata', '{}'::jsonb)) AS data) payload`;
  const messages = `INSERT INTO "WebhookMessage" (id, "businessId", livemode, "endpointId", "eventId", "eventType", state, attempts, "nextAttemptAt", "createdAt", "updatedAt")
    SELECT 'whm_' || ${tag} || lpad(n::text, 22, '0'), ${biz('(n / ' + EVENTS_PER_BOOKING + ') % $3::int')}, false, 'we_' || lpad(((n / ${EVENTS_PER_BOOKING}) % $3::int)::text, 23, '0'),
           'evt_' || ${tag} || lpad(n::text, 22, '0'), (ARRAY[${EVENT_TYPES.map((t) => `'${t}'`).join(',')}])[1 + n % ${EVENTS_PER_BOOKING}],
           'delivered', CASE WHEN n % 100 = 0 THEN 2 ELSE 1 END, t + CASE WHEN n % 100 = 0 THEN interval '5 seconds' ELSE interval '0.2 seconds' END, t,
           t + CASE WHEN n % 100 = 0 THEN interval '5 seconds' ELSE interval '0.2 seconds' END
      FROM (SELECT n, ${at(`n::float8 / ${EVENTS_PER_BOOKING}`)} AS t FROM generate_series(0, $6::int * ${EVENTS_PER_BOOKING} - 1) AS n) e`;
  // Attempt a of message n is number 2n + a - 1 (ids in the order they were made).
  const deliveries = `INSERT INTO "WebhookDelivery" (id, "businessId", livemode, "messageId", "endpointId", "eventId", "eventType", url, attempt, "responseStatus", "durationMs", "nextRetryAt", "createdAt")
    SELECT 'wd_' || ${tag} || lpad((2 * n + a - 1)::text, 23, '0'), ${biz('(n / ' + EVENTS_PER_BOOKING + ') % $3::int')}, false, 'whm_' || ${tag} || lpad(n::text, 22, '0'),
           'we_' || lpad(((n / ${EVENTS_PER_BOOKING}) % $3::int)::text, 23, '0'), 'evt_' || ${tag} || lpad(n::text, 22, '0'),
           (ARRAY[${EVENT_TYPES.map((t) => `'${t}'`).join(',')}])[1 + n % ${EVENTS_PER_BOOKING}], 'https://example.com/hooks/' || ((n / ${EVENTS_PER_BOOKING}) % $3::int),
           a, CASE WHEN n % 100 = 0 AND a = 1 THEN 500 ELSE 200 END, 40 + n % 60,
           CASE WHEN n % 100 = 0 AND a = 1 THEN t + interval '5 seconds' END, t + (a - 1) * interval '5 seconds' + interval '0.1 seconds'
      FROM (SELECT n, ${at(`n::float8 / ${EVENTS_PER_BOOKING}`)} AS t FROM generate_series(0, $6::int * ${EVENTS_PER_BOOKING} - 1) AS n) e,
           LATERAL generate_series(1, CASE WHEN n % 100 = 0 THEN 2 ELSE 1 END) AS a`;
  const audit = `INSERT INTO "AuditLog" (id, "businessId", livemode, "requestId", method, path, operation, status, "bookingId", objects, "createdAt")
    SELECT 'aud_' || ${tag} || lpad(n::text, 22, '0'), ${biz('(n / ' + AUDIT_PER_BOOKING + ') % $3::int')}, false, 'req_' || lpad(n::text, 22, '0'), 'POST',
           '/v1/bookings/bk_' || lpad((n / ${AUDIT_PER_BOOKING})::text, 23, '0') || (ARRAY['','/checkout','/deposit','/agreement/send','/identity-verification','/insurance','/pickup/mileage','/pickup/complete','/return/submit','/return/complete'])[1 + n % ${AUDIT_PER_BOOKING}],
           (ARRAY['createBooking','createCheckout','secureDeposit','sendAgreement','startIdentityVerification','submitInsurance','recordMileageOut','completePickup','submitReturn','completeReturn'])[1 + n % ${AUDIT_PER_BOOKING}],
           CASE WHEN n % ${AUDIT_PER_BOOKING} = 0 THEN 201 ELSE 200 END, 'bk_' || lpad((n / ${AUDIT_PER_BOOKING})::text, 23, '0'), ARRAY['bk_' || lpad((n / ${AUDIT_PER_BOOKING})::text, 23, '0')],
           ${at(`n::float8 / ${AUDIT_PER_BOOKING}`)}
      FROM generate_series(0, $6::int * ${AUDIT_PER_BOOKING} - 1) AS n`;
  return { events, messages, deliveries, audit };
}

/**
 * Fill `databaseUrl` (migrated, `tenantBusinessId` created) with `size`. Secondary indexes and
 * the exclusion constraint of the loaded tables are dropped during the load and rebuilt
 * after; foreign-key triggers are off while loading. Three connections: the big tables load
 * two at a time while the third rebuilds the bookings' indexes and exclusion constraint (a
 * GiST index: minutes for a million bookings). The bookings, vehicles and customers are
 * vacuumed (the availability probe reads the index alone); the big tables are analyzed only:
 * vacuuming them would rewrite every page once more. `onPhase` hears each step's seconds.
 * Returns the seconds it took and the rows made.
 */
export async function seedPlatform(
  databaseUrl: string,
  tenantBusinessId: string,
  size: PlatformSize,
  now = new Date(),
  onPhase: (phase: string, seconds: number) => void = () => {},
): Promise<{ seconds: number; counts: PlatformCounts }> {
  const started = Date.now();
  if (size.businesses * size.vehiclesPerBusiness * (size.days / size.bookings) < 6) {
    throw new Error('growth data: too many bookings for the fleet (each vehicle needs a booking at most every 6 days)');
  }
  const connect = async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('SET session_replication_role = replica'); // no FK triggers during the load
    await client.query('SET synchronous_commit = off');
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query("SET work_mem = '64MB'");
    return client;
  };
  const a = await connect();
  const b = await connect();
  const c = await connect();
  const phase = async <T>(name: string, work: Promise<T> | (() => Promise<T>)) => {
    const t = Date.now();
    const result = await (typeof work === 'function' ? work() : work);
    onPhase(name, (Date.now() - t) / 1000);
    return result;
  };
  try {
    const { rows: saved } = await a.query<{ kind: string; tbl: string; name: string; def: string }>(
      `SELECT 'index' AS kind, tablename AS tbl, indexname AS name, indexdef AS def FROM pg_indexes
        WHERE schemaname = 'public' AND tablename = ANY($1) AND indexname NOT LIKE '%\\_pkey'
          AND indexname NOT IN (SELECT conname FROM pg_constraint)
       UNION ALL
       SELECT 'constraint', conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
        WHERE conrelid::regclass::text = ANY($2) AND contype IN ('x', 'u')`,
      [TABLES, TABLES.map((t) => `"${t}"`)],
    );
    for (const s of saved) await a.query(s.kind === 'index' ? `DROP INDEX "${s.name}"` : `ALTER TABLE ${s.tbl} DROP CONSTRAINT "${s.name}"`);

    // $1 the tenant, $2 now, $3 businesses, $4 vehicles a business, $5 customers a business,
    // $6 bookings, $7 days. Booking j: business j % B, i = j / B its number in the business.
    // The values are written into the statements (numbers, a time and a generated id), so that
    // each statement may use only some of them.
    const p = statementParams(tenantBusinessId, size, now);
    const run = (client: pg.Client, sql: string) => client.query(fill(sql, p));

    await run(a, `INSERT INTO "Business" (id, name, "createdAt")
      SELECT ${biz('b')}, 'Business ' || b, $2::timestamptz - $7::int * interval '1 day' - interval '30 days'
        FROM generate_series(1, $3::int - 1) AS b`);
    await run(a, `INSERT INTO "WebhookEndpoint" (id, "businessId", livemode, url, "enabledEvents", secret, "createdAt", "updatedAt")
      SELECT 'we_' || lpad(b::text, 23, '0'), ${biz('b')}, false, 'https://example.com/hooks/' || b, ARRAY['*'], 'whsec_growth' || b,
             $2::timestamptz - $7::int * interval '1 day' - interval '20 days', $2::timestamptz - $7::int * interval '1 day' - interval '20 days'
        FROM generate_series(0, $3::int - 1) AS b`);
    await run(a, `INSERT INTO "Vehicle" (id, "businessId", livemode, name, make, model, year, currency, "dailyRateCents", "depositCents",
         "includedMiles", "extraMileFeeCents", "unlimitedMilesDailyCents", location, "createdAt", "updatedAt")
      SELECT 'veh_' || lpad(x::text, 22, '0'), ${biz('x % $3::int')}, false, 'Vehicle ' || x,
             (ARRAY['Toyota','Honda','Ford','Tesla','Kia'])[1 + x % 5], (ARRAY['Camry','Civic','F-150','Model 3','Niro'])[1 + x % 5],
             2018 + x % 7, 'usd', 5000 + (x % 50) * 100, 25000, 200, 35, CASE WHEN x % 3 = 0 THEN NULL ELSE 2500 END,
             jsonb_build_object('city', (ARRAY['Austin','Denver','Miami','Seattle'])[1 + x % 4], 'country', 'US'),
             $2::timestamptz - $7::int * interval '1 day' - interval '10 days', $2::timestamptz - $7::int * interval '1 day' - interval '10 days'
        FROM generate_series(0, $3::int * $4::int - 1) AS x`);
    await run(a, `INSERT INTO "Customer" (id, "businessId", livemode, name, email, "emailNormalized", "createdAt")
      SELECT 'cus_' || lpad(x::text, 22, '0'), ${biz('x % $3::int')}, false, 'Customer ' || x, 'customer' || x || '@example.com', 'customer' || x || '@example.com',
             $2::timestamptz - $7::int * interval '1 day' - interval '10 days'
        FROM generate_series(0, $3::int * $5::int - 1) AS x`);
    // Vehicle of booking j: the business's (i mod V)-th; customer: the (i mod C)-th.
    await phase('businesses, fleets, customers, bookings', () => run(a, `INSERT INTO "Booking" (id, "businessId", livemode, "vehicleId", "customerId", state, "startAt", "endAt", days, currency,
         "dailyRateCents", "rentalCents", "unlimitedMilesFeeCents", "depositCents", "includedMiles", "extraMileFeeCents", "totalCents",
         "paymentGate", "identityGate", "agreementGate", "depositGate", "mileageOut", "mileageIn", "pickedUpAt", "returnedAt", "completedAt",
         "canceledAt", "cancellationReason", "createdAt", "updatedAt")
      SELECT 'bk_' || lpad(j::text, 23, '0'), ${biz('b')}, false, 'veh_' || lpad((((i % $4::int) * $3::int) + b)::text, 22, '0'),
             'cus_' || lpad((((i % $5::int) * $3::int) + b)::text, 22, '0'), st, s_at, e_at, d, 'usd', 6000, 6000 * d, 0, 25000, 200 * d, 35, 6000 * d,
             'satisfied', 'satisfied', g, g,
             CASE WHEN st IN ('active','completed') THEN 10000 END, CASE WHEN st = 'completed' THEN 10000 + 150 * d END,
             CASE WHEN st IN ('active','completed') THEN s_at END, CASE WHEN st = 'completed' THEN e_at END, CASE WHEN st = 'completed' THEN e_at + interval '2 hours' END,
             CASE WHEN st = 'canceled' THEN c_at + interval '1 hour' END, CASE WHEN st = 'canceled' THEN 'customer_request' END, c_at, c_at
        FROM (
          SELECT j, b, i, c_at, s_at, e_at, d,
                 CASE WHEN e_at <= $2 THEN CASE WHEN j % 10 = 7 THEN 'canceled' ELSE 'completed' END
                      WHEN s_at <= $2 THEN 'active' WHEN j % 2 = 0 THEN 'booked' ELSE 'confirmed' END::"BookingState" AS st,
                 CASE WHEN e_at <= $2 OR s_at <= $2 OR j % 2 = 1 THEN 'satisfied' ELSE 'pending' END::"GateStatus" AS g
            FROM (SELECT j, j % $3::int AS b, j / $3::int AS i, ${at('j')} AS c_at,
                         ${at('j')} + interval '1 day' + (j % 5) * interval '1 hour' AS s_at,
                         ${at('j')} + interval '1 day' + (j % 5) * interval '1 hour' + (1 + j % 4) * interval '1 day' AS e_at, 1 + j % 4 AS d
                    FROM generate_series(0, $6::int - 1) AS j) t
        ) s`));

    // The four big tables, two at a time.
    const { events, messages, deliveries, audit } = bigTableInserts('');
    const restore = async (client: pg.Client, tables: string[]) => {
      for (const x of saved.filter((x) => tables.includes(x.tbl.replace(/"/g, '')))) {
        await client.query(x.kind === 'index' ? x.def : `ALTER TABLE ${x.tbl} ADD CONSTRAINT "${x.name}" ${x.def}`);
      }
    };
    const small = TABLES.filter((t) => !BIG_TABLES.includes(t));
    await Promise.all([
      phase('events, then delivery attempts', async () => { await run(a, events); await run(a, deliveries); }),
      phase('webhook messages, then audit records', async () => { await run(b, messages); await run(b, audit); }),
      phase('bookings, vehicles and customers: indexes, exclusion constraint, vacuum', async () => {
        await restore(c, small);
        for (const t of [...small, 'Business', 'WebhookEndpoint']) await c.query(`VACUUM (ANALYZE) "${t}"`);
      }),
    ]);
    // The big tables' indexes, two at a time, each table's on one connection; then their statistics.
    const queue = BIG_TABLES.map((t) => [t]);
    await phase('indexes of the big tables', Promise.all([a, b].map(async (client) => {
      await client.query('SET session_replication_role = DEFAULT');
      for (let next = queue.shift(); next; next = queue.shift()) await restore(client, next);
    })));
    await phase('statistics of the big tables', Promise.all([a, b].map(async (client, i) => {
      for (const t of BIG_TABLES.filter((_, k) => k % 2 === i)) await client.query(`ANALYZE "${t}"`);
    })));

    const { rows } = await a.query<Record<keyof PlatformCounts, string>>(
      `SELECT (SELECT count(*) FROM "Booking") AS bookings, (SELECT count(*) FROM "Event") AS events, (SELECT count(*) FROM "WebhookMessage") AS "webhookMessages",
              (SELECT count(*) FROM "WebhookDelivery") AS "webhookDeliveries", (SELECT count(*) FROM "AuditLog") AS "auditRecords"`,
    );
    const counts = Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)])) as unknown as PlatformCounts;
    return { seconds: (Date.now() - started) / 1000, counts };
  } finally {
    await Promise.all([a.end(), b.end(), c.end()]);
  }
}

/**
 * The big tables' rows of `size` added again under new ids (`tag`, a few letters or digits),
 * dated from `now`, with their indexes and foreign keys in place: on the near-empty platform a
 * new backlog for the retention bench to delete, so that its batches are as many as the year's
 * and their p99 is not the slowest of a couple of dozen.
 */
export async function addBigTableRows(databaseUrl: string, tenantBusinessId: string, size: PlatformSize, now: Date, tag: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const p = statementParams(tenantBusinessId, size, now);
    const { events, messages, deliveries, audit } = bigTableInserts(tag);
    for (const sql of [events, messages, deliveries, audit]) await client.query(fill(sql, p));
    await client.query('ANALYZE "Event", "WebhookMessage", "WebhookDelivery", "AuditLog"');
  } finally {
    await client.end();
  }
}
