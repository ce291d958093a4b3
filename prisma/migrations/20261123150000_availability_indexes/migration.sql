-- Availability (a vehicle is free when no blocking booking overlaps the period) probes each
-- vehicle's bookings with "endAt" > start AND "startAt" < end plus a filter on "state" and
-- "holdExpiresAt". Keyed by ("vehicleId", "endAt") the first entry past the start is the one
-- that can overlap, so a busy vehicle is settled on its first entry; with "startAt", "state"
-- and "holdExpiresAt" in the key the probe is an index-only scan. It replaces the
-- ("vehicleId", "startAt", "endAt") index, whose every use it also serves.

-- DropIndex
DROP INDEX "Booking_vehicleId_startAt_endAt_idx";

-- CreateIndex
CREATE INDEX "Booking_vehicleId_endAt_startAt_state_holdExpiresAt_idx" ON "Booking"("vehicleId", "endAt", "startAt", "state", "holdExpiresAt");
