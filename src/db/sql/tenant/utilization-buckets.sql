-- Utilization report: per bucket, the vehicles in the fleet at some time of it (from their
-- creation until they were archived, if they were), the milliseconds each was in the fleet
-- within it, and the milliseconds of their bookings (every state but canceled and refunded)
-- within both. Milliseconds are whole (timestamps keep three decimals), so the sums are exact.
-- @param {DateTime} $1:from Start of the period (inclusive)
-- @param {DateTime} $2:to End of the period (exclusive)
-- @param {String} $3:timezone IANA time zone whose midnights cut the buckets
-- @param {String} $4:grouping day, week or month
-- @notNull period_start period_end vehicles available_ms booked_ms
WITH fleet AS (
  SELECT v."id", v."createdAt" AS since, COALESCE(v."archivedAt", 'infinity'::timestamptz) AS until
    FROM "Vehicle" v
   WHERE v."createdAt" < $2::timestamptz AND (v."archivedAt" IS NULL OR v."archivedAt" > $1::timestamptz)
)
SELECT b.period_start, b.period_end,
  (SELECT COUNT(*) FROM fleet f WHERE f.since < b.period_end AND f.until > b.period_start)::int AS vehicles,
  (SELECT COALESCE(SUM(ROUND(EXTRACT(EPOCH FROM (LEAST(b.period_end, f.until) - GREATEST(b.period_start, f.since))) * 1000)), 0)
     FROM fleet f WHERE f.since < b.period_end AND f.until > b.period_start)::bigint AS available_ms,
  (SELECT COALESCE(SUM(ROUND(EXTRACT(EPOCH FROM (LEAST(k."endAt", b.period_end, f.until) - GREATEST(k."startAt", b.period_start, f.since))) * 1000)), 0)
     FROM "Booking" k JOIN fleet f ON f."id" = k."vehicleId"
    WHERE k."state" NOT IN ('canceled', 'refunded')
      AND k."startAt" < b.period_end AND k."endAt" > b.period_start
      AND k."startAt" < f.until AND k."endAt" > f.since AND f.since < b.period_end AND f.until > b.period_start)::bigint AS booked_ms
FROM report_buckets($1, $2, $3, $4) AS b
ORDER BY b.period_start
