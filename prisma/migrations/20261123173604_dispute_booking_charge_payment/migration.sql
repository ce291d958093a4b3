-- AlterTable
ALTER TABLE "Charge" ADD COLUMN     "processorPaymentId" TEXT;

-- AlterTable
ALTER TABLE "Dispute" ADD COLUMN     "bookingId" TEXT,
ADD COLUMN     "description" TEXT;

-- Disputes made before the column: their charge's booking.
UPDATE "Dispute" d SET "bookingId" = c."bookingId" FROM "Charge" c WHERE c."id" = d."chargeId" AND d."bookingId" IS NULL;
