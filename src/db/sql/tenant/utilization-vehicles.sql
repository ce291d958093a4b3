-- Utilization report, per vehicle: each vehicle in the fleet at some time of the period (from
-- its creation until it was archived, if it was), the milliseconds it was in the fleet within
-- the period, and the milliseconds of its bookings (every state but canceled and refunded)
-- within both. The buckets partition the period, so these add up to the report's totals.
-- @param {DateTime} $1:from Start of the period (inclusive)
-- @param {DateTime} $2:to End of the period (exclusive)
-- @notNull available_ms booked_ms
WITH fleet AS (
  SELECT v."id", v."name", v."archivedAt", v."createdAt" AS since, COALESCE(v."archivedAt", 'infinity'::timestamptz) AS until
    FROM "Vehicle" v
   WHERE v."createdAt" < $2::timestamptz AND (v."archivedAt" IS NULL OR v."archivedAt" > $1::timestamptz)
)
SELECT f."id" AS vehicle_id, f."name", f."archivedAt" AS archived_at,
  ROUND(EXTRACT(EPOCH FROM (LEAST($2::timestamptz, f.until) - GREATEST($1::timestamptz, f.since))) * 1000)::bigint AS available_ms,
  (SELECT COALESCE(SUM(ROUND(EXTRACT(EPOCH FROM (LEAST(k."endAt", $2::timestamptz, f.until) - GREATEST(k."startAt", $1::timestamptz, f.since))) * 1000)), 0)
     FROM "Booking" k
    WHERE k."vehicleId" = f."id" AND k."state" NOT IN ('canceled', 'refunded')
      AND k."startAt" < $2::timestamptz AND k."endAt" > $1::timestamptz
      AND k."startAt" < f.until AND k."endAt" > f.since)::bigint AS booked_ms
FROM fleet f
ORDER BY f."id"
