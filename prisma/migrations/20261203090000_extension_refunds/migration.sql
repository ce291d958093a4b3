-- An extension's charge keeps the processor's id of the money it took, so a cancellation can
-- refund it; a refund of an extension names the extension transaction it gives back.
ALTER TABLE "Transaction" ADD COLUMN "processorId" TEXT,
ADD COLUMN "refundedTransactionId" TEXT;
