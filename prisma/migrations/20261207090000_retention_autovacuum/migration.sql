-- Retention deletes from these tables every day, and the event relay updates every event once.
-- By default autovacuum waits until a fifth of a table is dead rows: two million rows of a
-- ten-million-row table. Until then every index probe of a retention batch, and the relay's
-- claim of unpublished events, walks over the dead rows' entries. Vacuumed once 1% of a table
-- (and at least 10,000 rows) is dead, those entries go within a few retention passes.
ALTER TABLE "Event" SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 10000, autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "WebhookMessage" SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 10000, autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "WebhookDelivery" SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 10000, autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "AuditLog" SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 10000, autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "IdempotencyRecord" SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 10000, autovacuum_analyze_scale_factor = 0.02);
