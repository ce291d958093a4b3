-- CreateEnum
CREATE TYPE "VehicleAccessState" AS ENUM ('configured', 'released', 'revoked');

-- CreateTable
CREATE TABLE "VehicleAccess" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "bookingId" TEXT NOT NULL,
    "state" "VehicleAccessState" NOT NULL DEFAULT 'configured',
    "method" TEXT NOT NULL,
    "accessCode" TEXT,
    "instructions" TEXT,
    "releasedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "VehicleAccess_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "VehicleAccess_bookingId_key" ON "VehicleAccess"("bookingId");

-- AddForeignKey
ALTER TABLE "VehicleAccess" ADD CONSTRAINT "VehicleAccess_bookingId_fkey" FOREIGN KEY ("bookingId") REFERENCES "Booking"("id") ON DELETE CASCADE ON UPDATE CASCADE;
