-- AlterTable
ALTER TABLE "Business" ADD COLUMN     "sandboxClockOffsetSeconds" INTEGER NOT NULL DEFAULT 0;
