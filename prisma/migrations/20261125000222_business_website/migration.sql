-- AlterEnum
ALTER TYPE "FilePurpose" ADD VALUE 'brand_logo';

-- AlterTable
ALTER TABLE "Business" ADD COLUMN     "address" JSONB,
ADD COLUMN     "sandboxSettings" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "supportEmail" TEXT,
ADD COLUMN     "supportPhone" TEXT;

-- CreateTable
CREATE TABLE "Website" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "published" BOOLEAN NOT NULL DEFAULT false,
    "title" TEXT,
    "description" TEXT,
    "contactEmail" TEXT,
    "contactPhone" TEXT,
    "publishedVehicleIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Website_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Branding" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "primaryColor" TEXT,
    "secondaryColor" TEXT,
    "accentColor" TEXT,
    "logoFileId" TEXT,
    "font" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Branding_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Website_businessId_livemode_key" ON "Website"("businessId", "livemode");

-- CreateIndex
CREATE UNIQUE INDEX "Branding_businessId_livemode_key" ON "Branding"("businessId", "livemode");

-- The sandbox starts with the settings the business had (one column served both until now).
UPDATE "Business" SET "sandboxSettings" = "settings";
