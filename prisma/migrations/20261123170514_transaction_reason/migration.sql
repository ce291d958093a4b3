-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "reason" TEXT;
