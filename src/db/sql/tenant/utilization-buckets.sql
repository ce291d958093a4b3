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
FROM (
  -- The period's buckets in order (days, weeks from Monday or months of the time zone), the
  -- first and last clipped to the period; cut on the zone's wall-clock times, so a
  -- daylight-saving day has its 23 or 25 hours whatever the session's TimeZone.
  SELECT GREATEST(s AT TIME ZONE $3, $1::timestamptz) AS period_start,
         LEAST((s + ('1 ' || $4)::interval) AT TIME ZONE $3, $2::timestamptz) AS period_end
    FROM generate_series(
      date_trunc($4, $1::timestamptz AT TIME ZONE $3),
      $2::timestamptz AT TIME ZONE $3 - interval '1 microsecond',
      ('1 ' || $4)::interval
    ) AS s
) AS b
ORDER BY b.period_start
