-- AlterTable
ALTER TABLE "Deposit" ADD COLUMN     "processorHoldId" TEXT;
