-- AlterTable
ALTER TABLE "Insurance" ADD COLUMN     "expiresOn" TEXT;
