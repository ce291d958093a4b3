-- Retention of webhook deliveries: up to `limit` messages in `state` (delivered or failed) that
-- finished before `before` and not before `from` (where the previous batch stopped), each with
-- its delivery attempts; a pending message (still being delivered) is never taken. Oldest
-- first along the claim's ("state", "nextAttemptAt") index, which for a finished message holds
-- the time it finished. Going on from where the previous batch stopped, a batch never walks
-- over the index entries of the messages earlier batches deleted (they stay until VACUUM).
-- FOR UPDATE SKIP LOCKED: passes of several processes take different messages and never wait
-- for each other, nor for a worker or a retry by hand holding one. One statement, so a batch
-- holds its locks only while it runs. The locked messages are deleted where they are (their
-- ctid, which cannot change while the lock is held), not looked up again by id.
-- @param {DateTime} $1:before Messages finished before this time go
-- @param {Int} $2:limit Messages to delete at most (one batch)
-- @param {String} $3:state delivered or failed
-- @param {DateTime} $4:from Where the previous batch stopped (the epoch at first)
-- @notNull messages attempts
WITH doomed AS (
  SELECT ctid, id, "nextAttemptAt" FROM "WebhookMessage"
   WHERE state = $3::"WebhookMessageState" AND state <> 'pending' AND "nextAttemptAt" < $1 AND "nextAttemptAt" >= $4
   ORDER BY "nextAttemptAt"
   LIMIT $2::int
   FOR UPDATE SKIP LOCKED
), attempts AS (
  DELETE FROM "WebhookDelivery" WHERE "messageId" IN (SELECT id FROM doomed) RETURNING 1
), messages AS (
  DELETE FROM "WebhookMessage" WHERE ctid = ANY(ARRAY(SELECT ctid FROM doomed)) RETURNING 1
)
SELECT (SELECT count(*) FROM messages)::int AS messages, (SELECT count(*) FROM attempts)::int AS attempts,
       (SELECT max("nextAttemptAt") FROM doomed) AS last
