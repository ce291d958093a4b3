-- CreateEnum
CREATE TYPE "MessageDeliveryState" AS ENUM ('queued', 'sent', 'failed');

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "deliveryAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "deliveryClaimedUntil" TIMESTAMPTZ(3),
ADD COLUMN     "failureCode" TEXT,
ADD COLUMN     "recipient" TEXT,
ADD COLUMN     "sentAt" TIMESTAMPTZ(3),
ADD COLUMN     "state" "MessageDeliveryState" NOT NULL DEFAULT 'sent',
ADD COLUMN     "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateIndex
CREATE INDEX "Message_state_deliveryClaimedUntil_idx" ON "Message"("state", "deliveryClaimedUntil");
