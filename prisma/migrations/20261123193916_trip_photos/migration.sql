-- CreateEnum
CREATE TYPE "TripStage" AS ENUM ('pickup', 'return');

-- CreateEnum
CREATE TYPE "PhotoSlot" AS ENUM ('front', 'rear', 'driver_side', 'passenger_side', 'interior', 'odometer', 'damage_detail');

-- CreateTable
CREATE TABLE "TripPhoto" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "bookingId" TEXT NOT NULL,
    "stage" "TripStage" NOT NULL,
    "slot" "PhotoSlot" NOT NULL,
    "fileId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TripPhoto_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "TripPhoto_bookingId_stage_id_idx" ON "TripPhoto"("bookingId", "stage", "id");

-- CreateIndex
CREATE INDEX "TripPhoto_fileId_idx" ON "TripPhoto"("fileId");

-- AddForeignKey
ALTER TABLE "TripPhoto" ADD CONSTRAINT "TripPhoto_bookingId_fkey" FOREIGN KEY ("bookingId") REFERENCES "Booking"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TripPhoto" ADD CONSTRAINT "TripPhoto_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
