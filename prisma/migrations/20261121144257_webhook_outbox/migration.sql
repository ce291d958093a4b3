-- CreateEnum
CREATE TYPE "WebhookMessageState" AS ENUM ('pending', 'delivered', 'failed');

-- DropIndex
DROP INDEX "WebhookDelivery_state_nextAttemptAt_idx";

-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "publishedAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "WebhookDelivery" DROP COLUMN "nextAttemptAt",
DROP COLUMN "state",
DROP COLUMN "updatedAt",
ADD COLUMN     "error" TEXT,
ADD COLUMN     "messageId" TEXT NOT NULL,
ADD COLUMN     "nextRetryAt" TIMESTAMPTZ(3),
ALTER COLUMN "attempt" DROP DEFAULT,
ALTER COLUMN "durationMs" SET NOT NULL;

-- DropEnum
DROP TYPE "DeliveryState";

-- CreateTable
CREATE TABLE "WebhookMessage" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "endpointId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "state" "WebhookMessageState" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "WebhookMessage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WebhookMessage_state_nextAttemptAt_idx" ON "WebhookMessage"("state", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookMessage_eventId_endpointId_key" ON "WebhookMessage"("eventId", "endpointId");

-- CreateIndex
CREATE INDEX "Event_businessId_livemode_type_id_idx" ON "Event"("businessId", "livemode", "type", "id");

-- CreateIndex
CREATE INDEX "Event_publishedAt_idx" ON "Event"("publishedAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_eventId_id_idx" ON "WebhookDelivery"("eventId", "id");

-- AddForeignKey
ALTER TABLE "WebhookMessage" ADD CONSTRAINT "WebhookMessage_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookMessage" ADD CONSTRAINT "WebhookMessage_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "WebhookMessage"("id") ON DELETE CASCADE ON UPDATE CASCADE;
