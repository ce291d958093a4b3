-- Whether the database knows the time zone (its list and the runtime's may differ).
-- @param {String} $1:name IANA time zone name
-- @notNull known
SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS known
