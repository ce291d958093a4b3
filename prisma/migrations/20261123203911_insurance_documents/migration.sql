-- AlterTable
ALTER TABLE "Insurance" ADD COLUMN     "documentFileIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "rejectionReason" TEXT;
