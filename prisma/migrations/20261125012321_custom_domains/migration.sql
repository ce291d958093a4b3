-- CreateEnum
CREATE TYPE "DomainState" AS ENUM ('pending_verification', 'verified');

-- CreateTable
CREATE TABLE "Domain" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "hostname" TEXT NOT NULL,
    "state" "DomainState" NOT NULL DEFAULT 'pending_verification',
    "verificationToken" TEXT NOT NULL,
    "verifiedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Domain_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Domain_businessId_livemode_id_idx" ON "Domain"("businessId", "livemode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Domain_businessId_livemode_hostname_key" ON "Domain"("businessId", "livemode", "hostname");
