-- AlterTable
ALTER TABLE "IdentityVerification" ADD COLUMN     "documents" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "provider" TEXT,
ADD COLUMN     "providerSessionId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "IdentityVerification_providerSessionId_key" ON "IdentityVerification"("providerSessionId");
