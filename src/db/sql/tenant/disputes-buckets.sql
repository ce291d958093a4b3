-- Disputes report: per bucket, disputes opened (by creation) and approved or closed (by the
-- time of that decision's event), with the disputed charges' amounts. One line per fact
-- (opened, approved, closed) at its time, then counted per bucket.
-- @param {DateTime} $1:from Start of the period (inclusive)
-- @param {DateTime} $2:to End of the period (exclusive)
-- @param {String} $3:timezone IANA time zone whose midnights cut the buckets
-- @param {String} $4:grouping day, week or month
-- @notNull period_start period_end opened approved closed disputed_cents approved_cents
SELECT b.period_start, b.period_end,
  COUNT(f.kind) FILTER (WHERE f.kind = 'opened')::int AS opened,
  COUNT(f.kind) FILTER (WHERE f.kind = 'approved')::int AS approved,
  COUNT(f.kind) FILTER (WHERE f.kind = 'closed')::int AS closed,
  COALESCE(SUM(f.amount) FILTER (WHERE f.kind = 'opened'), 0)::bigint AS disputed_cents,
  COALESCE(SUM(f.amount) FILTER (WHERE f.kind = 'approved'), 0)::bigint AS approved_cents
FROM report_buckets($1, $2, $3, $4) AS b
LEFT JOIN (
  SELECT 'opened' AS kind, d."createdAt" AS at, c."amountCents" AS amount
    FROM "Dispute" d JOIN "Charge" c ON c."id" = d."chargeId"
   WHERE d."createdAt" >= $1::timestamptz AND d."createdAt" < $2::timestamptz
  UNION ALL
  SELECT CASE e."type" WHEN 'dispute.approved' THEN 'approved' ELSE 'closed' END, e."createdAt", c."amountCents"
    FROM "Event" e JOIN "Dispute" d ON d."id" = e."data"->'object'->>'id' JOIN "Charge" c ON c."id" = d."chargeId"
   WHERE e."type" IN ('dispute.approved', 'dispute.closed')
     AND e."createdAt" >= $1::timestamptz AND e."createdAt" < $2::timestamptz
) f ON f.at >= b.period_start AND f.at < b.period_end
GROUP BY b.period_start, b.period_end
ORDER BY b.period_start
