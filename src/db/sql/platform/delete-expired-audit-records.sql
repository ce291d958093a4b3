-- Retention of audit records: up to `limit` records created before `before` and not before
-- `from` (where the previous batch stopped), oldest first along the "createdAt" index. Going
-- on from there, a batch never walks over the index entries of the records earlier batches
-- deleted, which stay in the index until VACUUM removes them (hundreds of thousands while a
-- year's backlog goes). FOR UPDATE SKIP LOCKED: passes of several processes take different
-- records and never wait for each other. The locked rows are deleted where they are (their
-- ctid, which cannot change while the lock is held), not looked up again by id.
-- @param {DateTime} $1:before Records created before this time go
-- @param {Int} $2:limit Records to delete at most (one batch)
-- @param {DateTime} $3:from Where the previous batch stopped (the epoch at first)
-- @notNull deleted
WITH doomed AS (
  SELECT ctid, "createdAt" FROM "AuditLog" WHERE "createdAt" < $1 AND "createdAt" >= $3 ORDER BY "createdAt" LIMIT $2::int FOR UPDATE SKIP LOCKED
), deleted AS (
  DELETE FROM "AuditLog" WHERE ctid = ANY(ARRAY(SELECT ctid FROM doomed)) RETURNING 1
)
SELECT (SELECT count(*) FROM deleted)::int AS deleted, (SELECT max("createdAt") FROM doomed) AS last
