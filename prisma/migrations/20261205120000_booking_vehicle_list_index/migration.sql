-- A vehicle's bookings (GET /v1/bookings?vehicle_id=) a page at a time from an index, instead
-- of reading all of the vehicle's bookings and sorting them: after years of rentals a vehicle
-- has hundreds. IF NOT EXISTS: an installation whose table is already big builds it beforehand
-- with CREATE INDEX CONCURRENTLY under this name (docs/retention.md).
CREATE INDEX IF NOT EXISTS "Booking_vehicleId_id_idx" ON "Booking"("vehicleId", "id");
-- A vehicle is one business's, in one environment: without this PostgreSQL takes the tenant
-- scope's business and environment as independent of the vehicle, expects a handful of its
-- bookings to match, and combines two indexes and sorts instead of reading this one in order.
-- (The statistics are gathered by the next ANALYZE, autovacuum's included.)
CREATE STATISTICS IF NOT EXISTS "Booking_vehicleId_tenant_stats" (dependencies) ON "vehicleId", "businessId", "livemode" FROM "Booking";
