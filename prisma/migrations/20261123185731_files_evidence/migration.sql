-- CreateEnum
CREATE TYPE "FileState" AS ENUM ('pending_upload', 'uploaded', 'expired', 'deleted');

-- CreateEnum
CREATE TYPE "FilePurpose" AS ENUM ('vehicle_photo', 'pickup_photo', 'return_photo', 'damage_evidence', 'charge_evidence', 'dispute_evidence', 'identity_document', 'agreement', 'insurance_document', 'other');

-- CreateTable
CREATE TABLE "File" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "purpose" "FilePurpose" NOT NULL,
    "filename" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "sizeBytes" INTEGER NOT NULL,
    "state" "FileState" NOT NULL DEFAULT 'pending_upload',
    "sha256" TEXT,
    "uploadExpiresAt" TIMESTAMPTZ(3) NOT NULL,
    "uploadedAt" TIMESTAMPTZ(3),
    "deletedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "File_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Evidence" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "chargeId" TEXT,
    "disputeId" TEXT,
    "fileId" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Evidence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PlatformSecret" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PlatformSecret_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "File_businessId_livemode_id_idx" ON "File"("businessId", "livemode", "id");

-- CreateIndex
CREATE INDEX "Evidence_chargeId_id_idx" ON "Evidence"("chargeId", "id");

-- CreateIndex
CREATE INDEX "Evidence_disputeId_id_idx" ON "Evidence"("disputeId", "id");

-- CreateIndex
CREATE INDEX "Evidence_fileId_idx" ON "Evidence"("fileId");

-- AddForeignKey
ALTER TABLE "Evidence" ADD CONSTRAINT "Evidence_chargeId_fkey" FOREIGN KEY ("chargeId") REFERENCES "Charge"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Evidence" ADD CONSTRAINT "Evidence_disputeId_fkey" FOREIGN KEY ("disputeId") REFERENCES "Dispute"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Evidence" ADD CONSTRAINT "Evidence_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Evidence belongs to exactly one charge or one dispute.
ALTER TABLE "Evidence" ADD CONSTRAINT "Evidence_one_owner" CHECK (("chargeId" IS NULL) <> ("disputeId" IS NULL));
