import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type AppConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { createBusiness, type CreatedBusiness } from '../../src/platform/businesses.ts';
import { buildApp, type App } from '../../src/server.ts';
import { createTestPostgresDatabase } from './postgres.ts';
import { checkHandledAnswers } from './answer-hook.ts';
import { checkAnswersOf } from './under-test.ts';

export type Engine = 'pglite' | 'postgres';

/** Both storage engines; every end-to-end suite runs against each. */
export const ENGINES: Engine[] = ['pglite', 'postgres'];

export interface TestApp {
  app: App;
  db: Database;
  baseUrl: string;
  /** The business every test acts as, and a second one (a foreign tenant). */
  business: CreatedBusiness;
  other: CreatedBusiness;
  /** Where this app keeps files' bytes (a directory of its own). */
  filesDir: string;
  close(): Promise<void>;
}

/** Boot `buildApp()` on a freshly migrated database, listening on a loopback port. */
export async function startTestApp(engine: Engine, overrides: Partial<AppConfig> = {}, options: Pick<Parameters<typeof buildApp>[0], 'routes' | 'processors' | 'now' | 'adjustEdge'> = {}): Promise<TestApp> {
  const pg = engine === 'postgres' ? await createTestPostgresDatabase() : null;
  const db = await openDatabase(pg ? { databaseUrl: pg.url } : { dataDir: 'memory://' });
  const filesDir = await mkdtemp(join(tmpdir(), 'rental-files-'));
  const config = { ...loadConfig({}), holdSweepMs: 0, rateLimitLive: 100_000, rateLimitTest: 100_000, invitationAcceptLimit: 100_000, browserBookingLimit: 100_000, filesDir, ...overrides };
  const app = await buildApp({ db, config, ...options });
  const server = await app.listen(0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  checkAnswersOf(`http://127.0.0.1:${port}`);
  checkHandledAnswers(app, `http://127.0.0.1:${port}`);
  const business = await createBusiness(db.prisma, { name: 'Test Rentals' });
  const other = await createBusiness(db.prisma, { name: 'Other Rentals' });
  return {
    app,
    db,
    baseUrl: `http://127.0.0.1:${port}`,
    business,
    other,
    filesDir: config.filesDir,
    async close() {
      await app.close();
      await db.close();
      await pg?.drop();
      await rm(filesDir, { recursive: true, force: true });
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * A small REST client bound to one key, speaking real HTTP. Every answer is checked against
 * the OpenAPI document the service serves by the suites' one answer hook
 * (test/support/answer-hook.ts): an answer its operation does not document fails the request.
 */
export function restClient(baseUrl: string, key: string | null) {
  checkAnswersOf(baseUrl);
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => call('POST', path, body ?? {}, headers),
    call,
  };
}

/** A GraphQL client bound to one key (its answers' errors checked against the error catalogue by the answer hook). */
export function graphqlClient(baseUrl: string, key: string) {
  checkAnswersOf(baseUrl);
  return async function gql<T = any>(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const res = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: T; errors?: { message: string; extensions: Record<string, any> }[] };
    return { status: res.status, ...body, headers: res.headers };
  };
}

/** A period starting `startDays` from now, lasting `days`, at whole hours. */
export function period(startDays: number, days: number) {
  const start = new Date(Date.now() + startDays * 86_400_000);
  start.setUTCMinutes(0, 0, 0);
  const end = new Date(start.getTime() + days * 86_400_000);
  return { start_at: start.toISOString(), end_at: end.toISOString() };
}
