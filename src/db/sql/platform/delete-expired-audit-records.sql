-- Retention of audit records: up to `limit` records created before `before`, oldest first along
-- the "createdAt" index. FOR UPDATE SKIP LOCKED: passes of several processes take different
-- records and never wait for each other.
-- @param {DateTime} $1:before Records created before this time go
-- @param {Int} $2:limit Records to delete at most (one batch)
-- @notNull deleted
WITH doomed AS (
  SELECT id FROM "AuditLog" WHERE "createdAt" < $1 ORDER BY "createdAt" LIMIT $2::int FOR UPDATE SKIP LOCKED
), deleted AS (
  DELETE FROM "AuditLog" WHERE id IN (SELECT id FROM doomed) RETURNING 1
)
SELECT count(*)::int AS deleted FROM deleted
