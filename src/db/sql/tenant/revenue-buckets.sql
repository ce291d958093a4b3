-- Revenue report: per bucket, the business's succeeded transactions in its currency, summed
-- by kind (payments, refunds, charges, deposit captures) and the charges by their type.
-- Extensions are not counted, nor are the refunds of them (refundedTransactionId set).
-- @param {DateTime} $1:from Start of the period (inclusive)
-- @param {DateTime} $2:to End of the period (exclusive)
-- @param {String} $3:timezone IANA time zone whose midnights cut the buckets
-- @param {String} $4:grouping day, week or month
-- @param {String} $5:currency The business's currency: only movements in it count
-- @notNull period_start period_end payments_cents refunds_cents charges_cents deposit_captures_cents
-- @notNull charges_mileage_cents charges_damage_cents charges_fuel_cents charges_late_return_cents
-- @notNull charges_cleaning_cents charges_toll_cents charges_other_cents
SELECT b.period_start, b.period_end,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" = 'payment'), 0)::bigint AS payments_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" = 'refund' AND t."refundedTransactionId" IS NULL), 0)::bigint AS refunds_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" = 'charge'), 0)::bigint AS charges_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" = 'deposit_capture'), 0)::bigint AS deposit_captures_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" IN ('charge', 'deposit_capture') AND c."type" = 'mileage'), 0)::bigint AS charges_mileage_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" IN ('charge', 'deposit_capture') AND c."type" = 'damage'), 0)::bigint AS charges_damage_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" IN ('charge', 'deposit_capture') AND c."type" = 'fuel'), 0)::bigint AS charges_fuel_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" IN ('charge', 'deposit_capture') AND c."type" = 'late_return'), 0)::bigint AS charges_late_return_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" IN ('charge', 'deposit_capture') AND c."type" = 'cleaning'), 0)::bigint AS charges_cleaning_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" IN ('charge', 'deposit_capture') AND c."type" = 'toll'), 0)::bigint AS charges_toll_cents,
  COALESCE(SUM(t."amountCents") FILTER (WHERE t."type" IN ('charge', 'deposit_capture') AND c."type" = 'other'), 0)::bigint AS charges_other_cents
FROM report_buckets($1, $2, $3, $4) AS b
LEFT JOIN "Transaction" t
  ON t."createdAt" >= b.period_start AND t."createdAt" < b.period_end
 AND t."status" = 'succeeded' AND t."currency" = $5
 AND t."type" IN ('payment', 'refund', 'charge', 'deposit_capture')
LEFT JOIN "Charge" c ON c."id" = t."chargeId"
GROUP BY b.period_start, b.period_end
ORDER BY b.period_start
