-- CreateEnum
CREATE TYPE "ProcessorCallKind" AS ENUM ('refund', 'deposit_capture', 'deposit_release', 'charge_collection', 'extension', 'payment_retry', 'late_payment_refund');

-- CreateTable
CREATE TABLE "ProcessorCall" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "bookingId" TEXT NOT NULL,
    "kind" "ProcessorCallKind" NOT NULL,
    "subjectId" TEXT NOT NULL,
    "reference" TEXT,
    "amountCents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "requestId" TEXT,
    "requestIdempotencyKey" TEXT,
    "claimedUntil" TIMESTAMPTZ(3),
    "sweepAttempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProcessorCall_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ProcessorCall_createdAt_idx" ON "ProcessorCall"("createdAt");
