-- The vehicles available at some time before `before` (active, created before it): the
-- utilization report's count for its whole period.
-- @param {DateTime} $1:before End of the period (exclusive)
-- @notNull vehicles
SELECT COUNT(*)::int AS vehicles FROM "Vehicle" v WHERE v."status" = 'active' AND v."createdAt" < $1::timestamptz
