// Bulk data for the read benchmarks, generated inside the throwaway PostgreSQL database by
// SQL (generate_series), so a million bookings take seconds rather than a million inserts.
//
// The shape: one business (test environment) owning the fleet, a few archived vehicles and
// a few in live mode; each vehicle has back-to-back bookings from a year ago to a year
// ahead, never overlapping while they hold the vehicle (the exclusion constraint is
// re-checked when it is rebuilt after the load); states follow time: completed in the
// past (some canceled, refunded, a problem), active now, booked/confirmed ahead, some
// pending_payment holds (half of them expired), some canceled. Ids sort by creation like
// the project's own ids.
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { createBusiness } from '../src/platform/businesses.ts';

export interface Tenant {
  businessId: string;
  testSecretKey: string;
}

/** Apply the migrations and create one business with its keys (the project's own code). */
export async function migrateAndCreateBusiness(databaseUrl: string): Promise<Tenant> {
  const db = await openDatabase({ databaseUrl });
  try {
    const business = await createBusiness(db.prisma, { name: 'Bench Rentals' });
    return { businessId: business.business_id, testSecretKey: business.test_secret_key };
  } finally {
    await db.close();
  }
}

export interface FleetSize {
  vehicles: number;
  bookings: number;
  customers: number;
  /** Give every booking that got as far as paying a Payment row. */
  payments: boolean;
}

/** The reference instant the bookings are spread around (the real clock, as the server's). */
export const NOW = new Date();

/**
 * Fill the database with `size` rows for `tenant`. Returns the seconds it took. Indexes and
 * the exclusion constraint of the bulk-loaded tables are dropped during the load and rebuilt
 * after (which validates them), and foreign-key triggers are off while loading.
 */
export async function generateFleet(databaseUrl: string, tenant: Tenant, size: FleetSize): Promise<number> {
  const started = Date.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SET session_replication_role = replica'); // no FK triggers during the bulk load
    await client.query("SET maintenance_work_mem = '256MB'");
    await client.query('SELECT setseed(0.42)');
    const tables = ['Vehicle', 'Customer', 'Booking', 'Payment'];
    // Save and drop secondary indexes and constraints (not primary keys), rebuild after.
    const { rows: saved } = await client.query<{ kind: string; tbl: string; name: string; def: string }>(
      `SELECT 'index' AS kind, tablename AS tbl, indexname AS name, indexdef AS def FROM pg_indexes
        WHERE schemaname = 'public' AND tablename = ANY($1) AND indexname NOT LIKE '%\\_pkey'
          AND indexname NOT IN (SELECT conname FROM pg_constraint)
       UNION ALL
       SELECT 'constraint', conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
        WHERE conrelid::regclass::text = ANY($2) AND contype = 'x'`,
      [tables, tables.map((t) => `"${t}"`)],
    );
    for (const s of saved) {
      await client.query(s.kind === 'index' ? `DROP INDEX "${s.name}"` : `ALTER TABLE ${s.tbl} DROP CONSTRAINT "${s.name}"`);
    }

    const vehicles = size.vehicles;
    const perVehicle = Math.max(1, Math.ceil(size.bookings / vehicles));
    await client.query(
      `INSERT INTO "Vehicle" (id, "businessId", livemode, name, make, model, year, status, currency, "dailyRateCents", "depositCents",
         "includedMiles", "extraMileFeeCents", "unlimitedMilesDailyCents", location, "deliveryOptions", photos, features, metadata, "createdAt", "updatedAt")
       SELECT 'veh_' || lpad(v::text, 22, '0'), $1, (v % 20 = 0), 'Vehicle ' || v,
              (ARRAY['Toyota','Honda','Ford','Tesla','Kia'])[1 + v % 5], (ARRAY['Camry','Civic','F-150','Model 3','Niro'])[1 + v % 5],
              2018 + v % 7, CASE WHEN v % 33 = 0 THEN 'archived' ELSE 'active' END::"VehicleStatus", 'usd',
              5000 + (v % 50) * 100, 25000, 200, 35, CASE WHEN v % 3 = 0 THEN NULL ELSE 2500 END,
              jsonb_build_object('city', (ARRAY['Austin','Denver','Miami','Seattle'])[1 + v % 4], 'region', 'US', 'country', 'US'),
              '[{"kind":"airport","fee_cents":3000}]'::jsonb, '[{"slot":"front","url":"https://example.com/front.jpg"}]'::jsonb,
              ARRAY['bluetooth','backup_camera'], jsonb_build_object('fleet', 'bench', 'n', v),
              $2::timestamptz - interval '800 days' + v * interval '1 minute', $2::timestamptz - interval '800 days' + v * interval '1 minute'
         FROM generate_series(1, $3::int) AS v`,
      [tenant.businessId, NOW, vehicles],
    );
    await client.query(
      `INSERT INTO "Customer" (id, "businessId", livemode, name, email, phone, metadata, "createdAt")
       SELECT 'cus_' || lpad(c::text, 22, '0'), $1, false, 'Customer ' || c, 'customer' || c || '@example.com', '+1555' || lpad(c::text, 7, '0'),
              '{}'::jsonb, $2::timestamptz - interval '800 days' + c * interval '1 second'
         FROM generate_series(1, $3::int) AS c`,
      [tenant.businessId, NOW, size.customers],
    );
    // Slots of equal length from a year ago to a year ahead, one booking per slot and
    // vehicle, placed at random inside it: never two overlapping bookings of one vehicle.
    await client.query(
      `WITH raw AS (
         SELECT v, k, d.dur_h,
                date_trunc('hour', $2::timestamptz) - interval '365 days' + (k * s.slot_h + floor(random() * (s.slot_h - d.dur_h)))::int * interval '1 hour' AS s_at,
                random() AS r, (1 + floor(random() * $5::int))::int AS cust
           FROM generate_series(1, $3::int) AS v,
                LATERAL (SELECT floor(730 * 24 / $4::int)::int AS slot_h) s,
                LATERAL generate_series(0, $4::int - 1) AS k,
                LATERAL (SELECT least(s.slot_h - 1, 12 + floor(random() * 144))::int AS dur_h) d
       ), timed AS (
         SELECT *, s_at + dur_h * interval '1 hour' AS e_at FROM raw
       ), stated AS (
         SELECT *, CASE
             WHEN e_at <= $2 THEN CASE WHEN r < 0.85 THEN 'completed' WHEN r < 0.95 THEN 'canceled' WHEN r < 0.99 THEN 'refunded' ELSE 'problem' END
             WHEN s_at <= $2 THEN CASE WHEN r < 0.9 THEN 'active' ELSE 'late' END
             ELSE CASE WHEN r < 0.40 THEN 'booked' WHEN r < 0.72 THEN 'confirmed' WHEN r < 0.76 THEN 'ready_for_pickup'
                       WHEN r < 0.84 THEN 'pending_payment' WHEN r < 0.86 THEN 'checkout_started' WHEN r < 0.87 THEN 'payment_pending'
                       ELSE 'canceled' END
           END::"BookingState" AS st,
           s_at - (1 + random() * 40) * interval '1 day' AS created
         FROM timed
       ), numbered AS (
         SELECT *, row_number() OVER (ORDER BY created) AS n, greatest(1, ceil(extract(epoch FROM e_at - s_at) / 86400))::int AS days,
                5000 + (v % 50) * 100 AS rate
           FROM stated
       )
       INSERT INTO "Booking" (id, "businessId", livemode, "vehicleId", "customerId", state, "startAt", "endAt", days, currency,
         "dailyRateCents", "rentalCents", "unlimitedMilesFeeCents", "depositCents", "includedMiles", "extraMileFeeCents", "totalCents",
         "paymentGate", "identityGate", "agreementGate", "depositGate", "holdExpiresAt", "canceledAt", "cancellationReason",
         "mileageOut", "mileageIn", "pickedUpAt", "returnedAt", "completedAt", metadata, "createdAt", "updatedAt")
       SELECT 'bk_' || lpad(n::text, 23, '0'), $1, (v % 20 = 0), 'veh_' || lpad(v::text, 22, '0'), 'cus_' || lpad(cust::text, 22, '0'), st, s_at, e_at,
              days, 'usd', rate, rate * days, 0, 25000, 200 * days, 35, rate * days,
              CASE WHEN st IN ('pending_payment','checkout_started','payment_pending') THEN 'pending' ELSE 'satisfied' END::"GateStatus",
              CASE WHEN st IN ('pending_payment','checkout_started') THEN 'pending' ELSE 'satisfied' END::"GateStatus",
              CASE WHEN st IN ('pending_payment','checkout_started','payment_pending','booked') THEN 'pending' ELSE 'satisfied' END::"GateStatus",
              CASE WHEN st IN ('pending_payment','checkout_started','payment_pending','booked') THEN 'pending' ELSE 'satisfied' END::"GateStatus",
              CASE WHEN st IN ('pending_payment','checkout_started') THEN $2::timestamptz + (CASE WHEN r < 0.8 THEN -1 ELSE 1 END) * interval '20 minutes' END,
              CASE WHEN st IN ('canceled','refunded') THEN least(s_at, $2) END,
              CASE WHEN st IN ('canceled','refunded') THEN 'customer_request' END,
              CASE WHEN st IN ('active','late','completed','problem') THEN 10000 + v END,
              CASE WHEN st IN ('completed','problem') THEN 10000 + v + 150 * days END,
              CASE WHEN st IN ('active','late','completed','problem') THEN s_at END,
              CASE WHEN st IN ('completed','problem') THEN e_at END,
              CASE WHEN st = 'completed' THEN e_at + interval '2 hours' END,
              '{}'::jsonb, created, created
         FROM numbered`,
      [tenant.businessId, NOW, vehicles, perVehicle, size.customers],
    );
    if (size.payments) {
      await client.query(
        `INSERT INTO "Payment" (id, "businessId", livemode, "bookingId", state, "amountCents", "amountRefundedCents", currency, "createdAt", "updatedAt")
         SELECT 'pay_' || substr(b.id, 4), b."businessId", b.livemode, b.id,
                CASE b.state WHEN 'refunded' THEN 'refunded' WHEN 'canceled' THEN 'canceled' WHEN 'checkout_started' THEN 'checkout_started'
                             WHEN 'payment_pending' THEN 'processing' ELSE 'succeeded' END::"PaymentState",
                b."totalCents", CASE WHEN b.state = 'refunded' THEN b."totalCents" ELSE 0 END, 'usd', b."createdAt", b."createdAt"
           FROM "Booking" b WHERE b.state <> 'pending_payment'`,
      );
    }
    await client.query('SET session_replication_role = DEFAULT');
    for (const s of saved) {
      await client.query(s.kind === 'index' ? s.def : `ALTER TABLE ${s.tbl} ADD CONSTRAINT "${s.name}" ${s.def}`);
    }
    await client.query('VACUUM ANALYZE "Vehicle", "Customer", "Booking", "Payment"');
  } finally {
    await client.end();
  }
  return (Date.now() - started) / 1000;
}
