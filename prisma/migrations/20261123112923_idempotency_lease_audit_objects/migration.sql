-- AlterTable
ALTER TABLE "AuditLog" ADD COLUMN     "objects" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "IdempotencyRecord" ADD COLUMN     "leaseExpiresAt" TIMESTAMPTZ(3);
