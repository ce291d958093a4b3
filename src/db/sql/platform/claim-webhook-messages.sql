-- The webhook worker's claim: up to `limit` due messages in one statement. FOR UPDATE SKIP
-- LOCKED lets any number of workers run side by side without two taking one message; the lease
-- pushes "nextAttemptAt" forward, so a message claimed by a worker that died is due again once
-- the lease runs out (the lease end also marks the claim as ours). Oldest first, at most
-- `perEndpoint` messages of one endpoint held by the worker (those it already holds count),
-- looked for among the `lookAhead` oldest due messages of endpoints with room left. Returned
-- in due order ("nextAttemptAt", then event id), which is the order of each endpoint's events.
-- The chosen ids are handed over as one array (computed once): as a join, PostgreSQL ran the
-- ranking again for every due message, 0.5 s a claim with 7,000 due.
-- @param {DateTime} $1:now The worker's clock
-- @param {String[]} $2:heldMessageIds Messages claimed by the worker and not recorded yet
-- @param {String[]} $3:fullEndpointIds Endpoints whose limit the worker already holds
-- @param {Int} $4:lookAhead How many of the oldest due messages to look among
-- @param {String[]} $5:heldEndpointIds Endpoints with messages held by the worker
-- @param {Int[]} $6:heldCounts How many of each
-- @param {Int} $7:perEndpoint Messages of one endpoint a worker holds at most
-- @param {Int} $8:limit Messages to claim at most
-- @param {DateTime} $9:leaseUntil The end of the lease
WITH candidates AS (
  SELECT id, "endpointId", "nextAttemptAt", "eventId" FROM "WebhookMessage"
   WHERE state = 'pending' AND "nextAttemptAt" <= $1
     AND NOT (id = ANY($2::text[])) AND NOT ("endpointId" = ANY($3::text[]))
   ORDER BY "nextAttemptAt", "eventId"
   LIMIT $4::int
), ranked AS (
  SELECT c.id, row_number() OVER (PARTITION BY c."endpointId" ORDER BY c."nextAttemptAt", c."eventId") + coalesce(h.n, 0) AS k
    FROM candidates c
    LEFT JOIN unnest($5::text[], $6::int[]) AS h(endpoint, n) ON h.endpoint = c."endpointId"
), due AS (
  SELECT m.id, m."nextAttemptAt" AS "dueAt" FROM "WebhookMessage" m
   WHERE m.id = ANY(ARRAY(SELECT id FROM ranked WHERE k <= $7::int)) AND m.state = 'pending' AND m."nextAttemptAt" <= $1
   ORDER BY m."nextAttemptAt", m."eventId"
   LIMIT $8::int
   FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE "WebhookMessage" m SET "nextAttemptAt" = $9, "updatedAt" = $1
    FROM due WHERE m.id = due.id
  RETURNING m.id, m."businessId", m.livemode, m."endpointId", m."eventId", m."eventType", m.attempts, due."dueAt"
)
SELECT c.id, c."businessId", c.livemode, c."endpointId", c."eventId", c."eventType", c.attempts,
       e."businessId" AS "eventBusinessId", e.type, e."bookingId", e.data, e."requestId", e."idempotencyKey", e."createdAt" AS "eventCreatedAt", w.url, w.secret
  FROM claimed c JOIN "Event" e ON e.id = c."eventId" JOIN "WebhookEndpoint" w ON w.id = c."endpointId"
 ORDER BY c."dueAt", c."eventId"
