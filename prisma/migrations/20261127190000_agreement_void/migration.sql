-- Agreements can be voided and made again: a booking keeps its voided agreements, and has at
-- most one that is not voided.
DROP INDEX "Agreement_bookingId_key";

-- AlterTable
ALTER TABLE "Agreement" ADD COLUMN     "voidReason" TEXT,
ADD COLUMN     "voidedAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "Agreement_bookingId_createdAt_idx" ON "Agreement"("bookingId", "createdAt");

-- One agreement per booking that is not voided (two creations racing: one wins).
CREATE UNIQUE INDEX "Agreement_bookingId_current_key" ON "Agreement"("bookingId") WHERE "state" <> 'voided';
