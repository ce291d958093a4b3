-- The buckets of a report's period, one definition for every report: days, weeks from Monday
-- or months of a time zone, in order, the first and last clipped to the period; cut on the
-- zone's wall-clock times, so a daylight-saving day has its 23 or 25 hours whatever the
-- session's TimeZone. Reads no table (a tenant's named statements may call it).
CREATE FUNCTION report_buckets(period_from timestamptz, period_to timestamptz, zone text, unit text)
RETURNS TABLE (period_start timestamptz, period_end timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT GREATEST(s AT TIME ZONE zone, period_from),
         LEAST((s + ('1 ' || unit)::interval) AT TIME ZONE zone, period_to)
    FROM generate_series(
      date_trunc(unit, period_from AT TIME ZONE zone),
      period_to AT TIME ZONE zone - interval '1 microsecond',
      ('1 ' || unit)::interval
    ) AS s
$$;
