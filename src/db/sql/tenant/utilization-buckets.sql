-- Utilization report: per bucket, the vehicles available in it (active, created before its
-- end), the milliseconds each existed in it, and the milliseconds of their bookings (every
-- state but canceled and refunded) within it. Milliseconds are whole (timestamps keep three
-- decimals), so the sums are exact.
-- @param {DateTime} $1:from Start of the period (inclusive)
-- @param {DateTime} $2:to End of the period (exclusive)
-- @param {String} $3:timezone IANA time zone whose midnights cut the buckets
-- @param {String} $4:grouping day, week or month
-- @notNull period_start period_end vehicles available_ms booked_ms
SELECT b.period_start, b.period_end,
  (SELECT COUNT(*) FROM "Vehicle" v WHERE v."status" = 'active' AND v."createdAt" < b.period_end)::int AS vehicles,
  (SELECT COALESCE(SUM(ROUND(EXTRACT(EPOCH FROM (b.period_end - GREATEST(b.period_start, v."createdAt"))) * 1000)), 0)
     FROM "Vehicle" v WHERE v."status" = 'active' AND v."createdAt" < b.period_end)::bigint AS available_ms,
  (SELECT COALESCE(SUM(ROUND(EXTRACT(EPOCH FROM (LEAST(k."endAt", b.period_end) - GREATEST(k."startAt", b.period_start, v."createdAt"))) * 1000)), 0)
     FROM "Booking" k JOIN "Vehicle" v ON v."id" = k."vehicleId"
    WHERE v."status" = 'active' AND k."state" NOT IN ('canceled', 'refunded')
      AND k."startAt" < b.period_end AND k."endAt" > b.period_start AND k."endAt" > v."createdAt" AND v."createdAt" < b.period_end)::bigint AS booked_ms
FROM report_buckets($1, $2, $3, $4) AS b
ORDER BY b.period_start
