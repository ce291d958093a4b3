-- AlterTable
ALTER TABLE "Vehicle" ADD COLUMN     "archivedAt" TIMESTAMPTZ(3);

-- Vehicles archived before the column existed: their last change is when they were archived
-- (an archived vehicle is never changed again).
UPDATE "Vehicle" SET "archivedAt" = "updatedAt" WHERE "status" = 'archived';
