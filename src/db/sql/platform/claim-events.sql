-- The event relay's claim: up to 200 unpublished events, marked published; relays of several
-- processes share them through SKIP LOCKED.
UPDATE "Event" SET "publishedAt" = now()
 WHERE id IN (SELECT id FROM "Event" WHERE "publishedAt" IS NULL ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED)
RETURNING id, "businessId", livemode, type, "bookingId", data, "requestId", "idempotencyKey", "createdAt"
