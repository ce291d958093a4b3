-- Retention of events: of the next `limit` events published before `before` after the one the
-- previous batch stopped at (oldest first, along the ("publishedAt", id) index the relay's claim
-- uses too; the relay publishes up to 200 events at one instant, so the id tells them apart),
-- those created before `before` that no webhook message refers to any more (every delivery of the event finished and was
-- itself deleted), so an event the relay has yet to publish or a webhook has yet to deliver
-- stays. Each batch reads at most `limit` events, deletable or not, and tells how far it read:
-- the next batch goes on from there, so events kept by a delivery are passed over once a pass,
-- not read again by every batch. FOR UPDATE SKIP LOCKED: passes of several processes never
-- delete an event twice nor wait for each other. Rows are found again where the batch read them
-- (their ctid; a row changed since is left for a later batch) and deleted where they were
-- locked, not looked up by id.
-- @param {DateTime} $1:before Events created and published before this time go
-- @param {Int} $2:limit Events to read at most (one batch)
-- @param {DateTime} $3:after When the event the previous batch stopped at was published (the epoch at first)
-- @param {String} $4:afterId That event's id ('' at first)
-- @notNull deleted read
WITH batch AS (
  SELECT ctid, id, "createdAt", "publishedAt" FROM "Event"
   WHERE "publishedAt" < $1 AND ("publishedAt", id) > ($3, $4)
   ORDER BY "publishedAt", id
   LIMIT $2::int
), doomed AS (
  SELECT e.ctid FROM "Event" e
   WHERE e.ctid = ANY(ARRAY(SELECT ctid FROM batch WHERE "createdAt" < $1))
     AND NOT EXISTS (SELECT 1 FROM "WebhookMessage" m WHERE m."eventId" = e.id)
   FOR UPDATE OF e SKIP LOCKED
), deleted AS (
  DELETE FROM "Event" WHERE ctid = ANY(ARRAY(SELECT ctid FROM doomed)) RETURNING 1
)
SELECT (SELECT count(*) FROM deleted)::int AS deleted, (SELECT count(*) FROM batch)::int AS read,
       (SELECT "publishedAt" FROM batch ORDER BY "publishedAt" DESC, id DESC LIMIT 1) AS "lastPublishedAt",
       (SELECT id FROM batch ORDER BY "publishedAt" DESC, id DESC LIMIT 1) AS "lastId"
