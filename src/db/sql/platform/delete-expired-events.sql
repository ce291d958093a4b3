-- Retention of events: up to `limit` events created and published before `before` that no
-- webhook message refers to any more (every delivery of the event finished and was itself
-- deleted), so an event the relay has yet to publish or a webhook has yet to deliver stays.
-- Oldest first along the relay's "publishedAt" index. FOR UPDATE SKIP LOCKED: passes of several
-- processes take different events and never wait for each other.
-- @param {DateTime} $1:before Events created and published before this time go
-- @param {Int} $2:limit Events to delete at most (one batch)
-- @notNull deleted
WITH doomed AS (
  SELECT e.id FROM "Event" e
   WHERE e."publishedAt" < $1 AND e."createdAt" < $1
     AND NOT EXISTS (SELECT 1 FROM "WebhookMessage" m WHERE m."eventId" = e.id)
   ORDER BY e."publishedAt"
   LIMIT $2::int
   FOR UPDATE OF e SKIP LOCKED
), deleted AS (
  DELETE FROM "Event" WHERE id IN (SELECT id FROM doomed) RETURNING 1
)
SELECT count(*)::int AS deleted FROM deleted
