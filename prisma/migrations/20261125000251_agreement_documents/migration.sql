-- AlterTable
ALTER TABLE "Agreement" ADD COLUMN     "documentSha256" TEXT,
ADD COLUMN     "fileId" TEXT,
ADD COLUMN     "sentAt" TIMESTAMPTZ(3),
ADD COLUMN     "sentVia" "MessageChannel",
ADD COLUMN     "signedDocumentSha256" TEXT,
ADD COLUMN     "signerIp" TEXT,
ADD COLUMN     "signerName" TEXT,
ADD COLUMN     "signerUserAgent" TEXT,
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 0;

-- AddForeignKey
ALTER TABLE "Agreement" ADD CONSTRAINT "Agreement_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "File"("id") ON DELETE SET NULL ON UPDATE CASCADE;
