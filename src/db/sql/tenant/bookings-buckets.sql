-- Bookings report: per bucket, the bookings created in it, and of those how many are paid (a
-- succeeded payment, refunded since or not), canceled and completed now, with the paid ones'
-- rental days and value in the business's currency.
-- @param {DateTime} $1:from Start of the period (inclusive)
-- @param {DateTime} $2:to End of the period (exclusive)
-- @param {String} $3:timezone IANA time zone whose midnights cut the buckets
-- @param {String} $4:grouping day, week or month
-- @param {String} $5:currency The business's currency: only bookings priced in it add value
-- @notNull period_start period_end created paid canceled completed paid_days booking_value_cents
SELECT b.period_start, b.period_end,
  COUNT(k."id")::int AS created,
  COUNT(k."id") FILTER (WHERE k.paid)::int AS paid,
  COUNT(k."id") FILTER (WHERE k."state" IN ('canceled', 'refunded'))::int AS canceled,
  COUNT(k."id") FILTER (WHERE k."state" = 'completed')::int AS completed,
  COALESCE(SUM(k."days") FILTER (WHERE k.paid), 0)::bigint AS paid_days,
  COALESCE(SUM(k."totalCents") FILTER (WHERE k.paid AND k."currency" = $5), 0)::bigint AS booking_value_cents
FROM report_buckets($1, $2, $3, $4) AS b
LEFT JOIN (
  SELECT bk.*, EXISTS (
    SELECT 1 FROM "Transaction" t WHERE t."bookingId" = bk."id" AND t."type" = 'payment' AND t."status" = 'succeeded'
  ) AS paid
  FROM "Booking" bk
  WHERE bk."createdAt" >= $1::timestamptz AND bk."createdAt" < $2::timestamptz
) k ON k."createdAt" >= b.period_start AND k."createdAt" < b.period_end
GROUP BY b.period_start, b.period_end
ORDER BY b.period_start
