-- CreateIndex
CREATE INDEX "Booking_businessId_livemode_createdAt_idx" ON "Booking"("businessId", "livemode", "createdAt");

-- CreateIndex
CREATE INDEX "Transaction_businessId_livemode_createdAt_idx" ON "Transaction"("businessId", "livemode", "createdAt");
