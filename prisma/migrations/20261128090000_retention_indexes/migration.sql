-- A year of data: every list read stays on an index within its tenant, and retention deletes
-- the oldest rows through an index (docs/retention.md).
-- - Bookings by state and by start time: the list's filters, which otherwise read every
--   booking of the tenant.
-- - Events by creation time: the list's created_after / created_before window.
-- - Events by publication time and id, instead of publication time alone: the relay's claim
--   (unpublished ones, in id order) reads them in order, and retention goes through the
--   published ones oldest first, a batch after another, though the relay publishes up to 200
--   at one instant.
-- - Delivery attempts by message: deleting a message (retention, or the foreign key's cascade)
--   finds its attempts without reading the whole table.
-- - Audit records by creation time: retention takes the oldest first, across businesses.
-- - Statistics that tell PostgreSQL an endpoint's delivery attempts are all of one business
--   and environment: the tenant scope adds both to every read, and taking the three as
--   independent, the planner expected a handful of an endpoint's attempts to be the
--   tenant's, and read and sorted all of them for every page, instead of the newest eleven
--   from the index.
-- IF [NOT] EXISTS: an installation whose tables are already big builds them beforehand with
-- CREATE INDEX CONCURRENTLY (which does not hold writes back while it runs) under these
-- names, and this migration then finds them (docs/retention.md).

-- CreateIndex
CREATE INDEX IF NOT EXISTS "Booking_businessId_livemode_state_id_idx" ON "Booking"("businessId", "livemode", "state", "id");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "Booking_businessId_livemode_startAt_idx" ON "Booking"("businessId", "livemode", "startAt");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "Event_businessId_livemode_createdAt_idx" ON "Event"("businessId", "livemode", "createdAt");

-- CreateIndex (before the one it replaces goes: the relay's claim always has one)
CREATE INDEX IF NOT EXISTS "Event_publishedAt_id_idx" ON "Event"("publishedAt", "id");

-- DropIndex
DROP INDEX IF EXISTS "Event_publishedAt_idx";

-- CreateIndex
CREATE INDEX IF NOT EXISTS "WebhookDelivery_messageId_idx" ON "WebhookDelivery"("messageId");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "AuditLog_createdAt_idx" ON "AuditLog"("createdAt");

-- CreateStatistics
CREATE STATISTICS IF NOT EXISTS "WebhookDelivery_endpointId_tenant_stats" (dependencies) ON "endpointId", "businessId", "livemode" FROM "WebhookDelivery";
