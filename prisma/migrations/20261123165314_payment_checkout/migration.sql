-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "checkoutExpiresAt" TIMESTAMPTZ(3),
ADD COLUMN     "checkoutId" TEXT,
ADD COLUMN     "processorPaymentId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Payment_checkoutId_key" ON "Payment"("checkoutId");

-- Money never moves past what is there, whatever the code does: refunds within the payment,
-- captures within the deposit (checked by the database, so also under concurrency).
ALTER TABLE "Payment" ADD CONSTRAINT "Payment_refunded_within_amount" CHECK ("amountRefundedCents" >= 0 AND "amountRefundedCents" <= "amountCents");
ALTER TABLE "Deposit" ADD CONSTRAINT "Deposit_captured_within_amount" CHECK ("capturedCents" >= 0 AND "capturedCents" <= "amountCents");
