// What the bare baselines share: the project's authentication done by hand (Bearer key ->
// SHA-256 -> "ApiKey" row, cached 5 s as the project caches principals), JSON answers with a
// request id, and a clean shutdown.
import { createHash, randomUUID } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import pg from 'pg';

export interface BarePrincipal { businessId: string; livemode: boolean; keyId: string }

export function barePool(): pg.Pool {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  return new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 20) });
}

const CACHE_MS = 5_000;

export function bareAuthenticator(pool: pg.Pool) {
  const cache = new Map<string, { principal: BarePrincipal; until: number }>();
  return async function authenticate(header: string | undefined): Promise<BarePrincipal | null> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!m) return null;
    const hash = createHash('sha256').update(m[1]).digest('hex');
    const hit = cache.get(hash);
    if (hit && hit.until > Date.now()) return hit.principal;
    const { rows } = await pool.query('SELECT id, "businessId", livemode, "revokedAt" FROM "ApiKey" WHERE "secretHash" = $1', [hash]);
    const row = rows[0];
    if (!row || row.revokedAt) return null;
    const principal = { businessId: row.businessId, livemode: row.livemode, keyId: row.id };
    cache.set(hash, { principal, until: Date.now() + CACHE_MS });
    return principal;
  };
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'request-id': `req_${randomUUID()}` });
  res.end(text);
}

/** Listen on PORT, print READY <port>, and close cleanly when the bench stops the process. */
export function serveBare(server: Server, pool: pg.Pool): void {
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : ''}\n`);
  });
  stopOnSignal(async () => {
    server.closeAllConnections();
    server.close();
    await pool.end().catch(() => {});
  });
}

/** When the bench stops a server process (SIGTERM, SIGINT, its parent gone): `close`, then exit (forced after 5 s). */
export function stopOnSignal(close: () => Promise<void>): void {
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(1), 5_000);
    force.unref();
    await close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('disconnect', shutdown);
}
