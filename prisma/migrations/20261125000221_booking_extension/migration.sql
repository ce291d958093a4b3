-- AlterEnum
ALTER TYPE "TransactionType" ADD VALUE 'extension';
