-- OAuth apps: the apps platforms register, the connections businesses grant them, and the
-- authorization server's storage (oidc-provider's adapter).
CREATE TABLE "App" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "name" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecretHash" TEXT NOT NULL,
    "redirectUris" TEXT[],
    "scopes" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "App_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "App_clientId_key" ON "App"("clientId");
CREATE INDEX "App_businessId_livemode_id_idx" ON "App"("businessId", "livemode", "id");

CREATE TABLE "ConnectedApp" (
    "id" TEXT NOT NULL,
    "businessId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "appId" TEXT NOT NULL,
    "memberId" TEXT NOT NULL,
    "scopes" TEXT[],
    "grantId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ConnectedApp_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "ConnectedApp_grantId_key" ON "ConnectedApp"("grantId");
CREATE INDEX "ConnectedApp_businessId_livemode_id_idx" ON "ConnectedApp"("businessId", "livemode", "id");
CREATE INDEX "ConnectedApp_appId_idx" ON "ConnectedApp"("appId");
ALTER TABLE "ConnectedApp" ADD CONSTRAINT "ConnectedApp_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "OAuthStore" (
    "kind" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "grantId" TEXT,
    "uid" TEXT,
    "userCode" TEXT,
    "expiresAt" TIMESTAMPTZ(3),
    "consumedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "OAuthStore_pkey" PRIMARY KEY ("kind", "id")
);

CREATE INDEX "OAuthStore_grantId_idx" ON "OAuthStore"("grantId");
CREATE INDEX "OAuthStore_uid_idx" ON "OAuthStore"("uid");
CREATE INDEX "OAuthStore_expiresAt_idx" ON "OAuthStore"("expiresAt");

-- The audit record names the OAuth app whose token made the call.
ALTER TABLE "AuditLog" ADD COLUMN "appId" TEXT;
