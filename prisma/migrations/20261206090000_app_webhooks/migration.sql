-- App webhooks: an endpoint registered on an OAuth app receives the events of the businesses
-- connected to the app.
ALTER TABLE "WebhookEndpoint" ADD COLUMN "appId" TEXT;
CREATE INDEX "WebhookEndpoint_appId_idx" ON "WebhookEndpoint"("appId");
ALTER TABLE "WebhookEndpoint" ADD CONSTRAINT "WebhookEndpoint_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One active connection per business, environment and app: approving the app again updates it.
-- Connections approved twice before this migration keep the newest; the older ones end (their
-- tokens answer token_revoked, as after a disconnection).
UPDATE "ConnectedApp" c SET "revokedAt" = CURRENT_TIMESTAMP, "updatedAt" = CURRENT_TIMESTAMP
 WHERE c."revokedAt" IS NULL
   AND EXISTS (SELECT 1 FROM "ConnectedApp" n
                WHERE n."businessId" = c."businessId" AND n."livemode" = c."livemode" AND n."appId" = c."appId"
                  AND n."revokedAt" IS NULL AND n."id" > c."id");
CREATE UNIQUE INDEX "ConnectedApp_active_key" ON "ConnectedApp"("businessId", "livemode", "appId") WHERE "revokedAt" IS NULL;
