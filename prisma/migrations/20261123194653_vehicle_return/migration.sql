-- CreateEnum
CREATE TYPE "ReturnState" AS ENUM ('not_started', 'in_progress', 'submitted', 'completed');

-- CreateTable
CREATE TABLE "VehicleReturn" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "bookingId" TEXT NOT NULL,
    "state" "ReturnState" NOT NULL DEFAULT 'not_started',
    "startedAt" TIMESTAMPTZ(3),
    "submittedAt" TIMESTAMPTZ(3),
    "completedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "VehicleReturn_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "VehicleReturn_bookingId_key" ON "VehicleReturn"("bookingId");

-- AddForeignKey
ALTER TABLE "VehicleReturn" ADD CONSTRAINT "VehicleReturn_bookingId_fkey" FOREIGN KEY ("bookingId") REFERENCES "Booking"("id") ON DELETE CASCADE ON UPDATE CASCADE;
