-- AlterTable
ALTER TABLE "Booking" ADD COLUMN     "dayRates" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "Customer" ADD COLUMN     "emailNormalized" TEXT;

-- AlterTable
ALTER TABLE "Quote" ADD COLUMN     "dayRates" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "deliveryOption" TEXT;

-- AlterTable
ALTER TABLE "Vehicle" ADD COLUMN     "seasonalRates" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "weekendDays" TEXT[] DEFAULT ARRAY['saturday', 'sunday']::TEXT[],
ADD COLUMN     "weekendRateCents" INTEGER;

-- CreateIndex
CREATE INDEX "Customer_businessId_livemode_emailNormalized_idx" ON "Customer"("businessId", "livemode", "emailNormalized");

-- Existing customers get their lower-case email.
UPDATE "Customer" SET "emailNormalized" = lower("email") WHERE "email" IS NOT NULL;

-- A booking is written only for an active vehicle. The check keeps the vehicle's row locked
-- (FOR SHARE) until the booking commits, so archiving, which locks the row FOR UPDATE before
-- counting the vehicle's bookings, either counts this booking or makes its insert fail.
CREATE FUNCTION "booking_vehicle_active"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "Vehicle" WHERE "id" = NEW."vehicleId" AND "status" = 'active' FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Booking_vehicle_active: vehicle % is not active', NEW."vehicleId" USING ERRCODE = 'RV001';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER "Booking_vehicle_active" BEFORE INSERT ON "Booking" FOR EACH ROW EXECUTE FUNCTION "booking_vehicle_active"();
