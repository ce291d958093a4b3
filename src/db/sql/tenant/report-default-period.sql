-- A report's period where the caller left it open: it ends at `end` (the given `to`), or,
-- rounded up, at the next midnight of `timezone` after `end` (the end of today, `end` being
-- the request's now); it starts `days` days of that zone's calendar earlier (a day of a
-- daylight-saving change keeping its 23 or 25 hours).
-- @param {DateTime} $1:end The given end, or now
-- @param {Boolean} $2:roundUp Whether to move `end` to the next midnight
-- @param {String} $3:timezone IANA time zone of the calendar
-- @param {Int} $4:days How many days the period covers
-- @notNull period_from period_to
WITH e AS (
  SELECT CASE WHEN $2::boolean THEN timezone($3::text, date_trunc('day', timezone($3::text, $1::timestamptz)) + interval '1 day') ELSE $1::timestamptz END AS period_to
)
SELECT timezone($3::text, timezone($3::text, e.period_to) - $4::int * interval '1 day') AS period_from, e.period_to
FROM e
