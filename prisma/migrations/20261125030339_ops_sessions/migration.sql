-- CreateTable
CREATE TABLE "OpsSignInLink" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "memberId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OpsSignInLink_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OpsSession" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "memberId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OpsSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "OpsSignInLink_tokenHash_key" ON "OpsSignInLink"("tokenHash");

-- CreateIndex
CREATE INDEX "OpsSignInLink_businessId_idx" ON "OpsSignInLink"("businessId");

-- CreateIndex
CREATE UNIQUE INDEX "OpsSession_tokenHash_key" ON "OpsSession"("tokenHash");

-- CreateIndex
CREATE INDEX "OpsSession_businessId_idx" ON "OpsSession"("businessId");

-- AddForeignKey
ALTER TABLE "OpsSignInLink" ADD CONSTRAINT "OpsSignInLink_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "TeamMember"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OpsSession" ADD CONSTRAINT "OpsSession_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "TeamMember"("id") ON DELETE CASCADE ON UPDATE CASCADE;
