-- AlterTable
ALTER TABLE "IdempotencyRecord" ADD COLUMN     "effects" JSONB;
