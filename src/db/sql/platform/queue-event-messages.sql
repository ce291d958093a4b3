-- The outbox's fan-out of one event, in the transaction that records it (the tenant scope's
-- $queueEventMessages, which binds the event's business and environment itself): one webhook
-- message per endpoint that receives it, in one statement however many endpoints and apps.
-- - The business's own endpoints (not an app's): enabled and subscribed to the type or to "*";
--   with `onlyEndpointId`, that one endpoint of the business alone, an app's too (a test send).
-- - The endpoints of the apps connected to the business (connection active, same
--   environment, app not deleted) whose grant holds one of `appScopes` (the permissions that
--   may read the event's object), enabled and subscribed; their messages are the app owner's
--   (its delivery log, its retries).
-- - With `appId` (app.authorized, app.deauthorized): the endpoints of that app, whose
--   connection to the business the event is about, whatever the connection's state.
-- Returns how many messages were queued.
-- @param {String} $1:eventId The event just recorded
-- @param {String} $2:businessId The event's business
-- @param {Boolean} $3:livemode The event's environment
-- @param {String} $4:onlyEndpointId This endpoint of the business only, or null
-- @param {String[]} $5:appScopes A connected app receives the event when its grant holds one of these (none: no app)
-- @param {String} $6:appId The app the event is about, or null
-- @param {String} $7:idPrefix The new messages' ids: this, then a number
-- @notNull queued
WITH e AS (
  SELECT id, type, "createdAt" FROM "Event" WHERE id = $1 AND "businessId" = $2 AND livemode = $3
), targets AS (
  SELECT w.id, w."businessId", w.livemode FROM "WebhookEndpoint" w, e
   WHERE w."businessId" = $2 AND w.livemode = $3
     AND CASE WHEN $4::text IS NULL THEN w."appId" IS NULL AND w.enabled AND w."enabledEvents" && ARRAY['*', e.type] ELSE w.id = $4::text END
  UNION
  SELECT w.id, w."businessId", w.livemode FROM "ConnectedApp" c
    JOIN "App" a ON a.id = c."appId" AND a."deletedAt" IS NULL
    JOIN "WebhookEndpoint" w ON w."appId" = a.id AND w.livemode = c.livemode, e
   WHERE $4::text IS NULL AND c."businessId" = $2 AND c.livemode = $3
     AND (c."revokedAt" IS NULL AND c.scopes && $5::text[] OR c."appId" = $6::text)
     AND w.enabled AND w."enabledEvents" && ARRAY['*', e.type]
), queued AS (
  INSERT INTO "WebhookMessage" (id, "businessId", livemode, "endpointId", "eventId", "eventType", "nextAttemptAt", "createdAt", "updatedAt")
  SELECT $7::text || row_number() OVER (ORDER BY t.id), t."businessId", t.livemode, t.id, e.id, e.type, e."createdAt", e."createdAt", e."createdAt"
    FROM targets t, e
  RETURNING 1
)
SELECT count(*)::int AS queued FROM queued
