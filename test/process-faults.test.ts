import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { restClient, startTestApp } from './support/app.ts';
import { spawnTs } from './support/processes.ts';

/**
 * Faults that must not take the service down, on the real `npm start` entry point: a SIGTERM
 * lets a request in flight finish, a port in use and a bad DATABASE_URL are one clear line and
 * a non-zero exit, and readiness follows the database.
 */
const READY = /listening on http:\/\/127\.0\.0\.1:(\d+)/;
const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rental-faults-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Run `npm start` to its end; resolves with its exit code and output. */
function runToExit(env: Record<string, string>, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    spawnTs('src/main.ts', env, /never printed/, timeoutMs).then(
      () => reject(new Error('unexpectedly ready')),
      (err: Error) => {
        const m = /exited with (\S+) before ready:\n([\s\S]*)$/.exec(err.message);
        if (!m) return reject(err);
        resolve({ code: m[1] === 'null' ? null : Number(m[1]), output: m[2] });
      },
    );
  });
}

const oneClearLine = (output: string) => {
  const lines = output.split('\n').filter((l) => l.trim() && !l.startsWith('npm warn'));
  expect(lines, output).toHaveLength(1);
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toMatch(/\{\s*$/m);
  return lines[0];
};

describe('process faults', () => {
  it('SIGTERM: stops accepting, lets a request in flight finish, then exits 0', async () => {
    const server = await spawnTs('src/main.ts', { DATA_DIR: await tempDir(), PORT: '0', LOG_LEVEL: 'info' }, READY);
    const port = Number(server.match[1]);
    // The keys are printed just after the address.
    for (let i = 0; i < 50 && !/"test_secret_key"/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 100));
    const key = /"test_secret_key": "([^"]+)"/.exec(server.output())![1];
    const body = JSON.stringify({ name: 'Slow Sedan', daily_rate_cents: 4900 });

    // A request whose body arrives slowly: half of it, then SIGTERM, then the rest.
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/vehicles', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.process.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 800);
      }, 300);
    });
    const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));

    const done = await answer;
    expect(done.status).toBe(201);
    expect(JSON.parse(done.body)).toMatchObject({ object: 'vehicle', name: 'Slow Sedan' });
    // Nothing new is accepted meanwhile, and the process ends cleanly.
    await expect(fetch(`http://127.0.0.1:${port}/health/live`)).rejects.toThrow();
    expect(await exited).toBe(0);
    expect(server.output()).toMatch(/SIGTERM: finishing requests in flight/);
  });

  it('a port in use: one clear line, a non-zero exit, and the embedded database released', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const dataDir = await tempDir();
    try {
      const { code, output } = await runToExit({ DATA_DIR: dataDir, PORT: String(port) });
      expect(code).toBe(1);
      expect(output).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(output).not.toMatch(/^\s+at /m);
      // The lock on DATA_DIR went with it: the same directory opens again at once.
      const again = await spawnTs('src/main.ts', { DATA_DIR: dataDir, PORT: '0' }, READY);
      await again.stop();
    } finally {
      taken.close();
    }
  });

  it('a bad or unreachable DATABASE_URL: one clear line naming it (never its password), exit 1', async () => {
    const refused = await runToExit({ DATABASE_URL: 'postgresql://postgres:s3cret@127.0.0.1:1/rental' });
    expect(refused.code).toBe(1);
    const line = oneClearLine(refused.output);
    expect(line).toMatch(/cannot connect to PostgreSQL at 127\.0\.0\.1:1.*connection refused/);
    expect(refused.output).not.toContain('s3cret');
    const malformed = await runToExit({ DATABASE_URL: 'not-a-url' });
    expect(malformed.code).toBe(1);
    expect(oneClearLine(malformed.output)).toMatch(/DATABASE_URL "not-a-url" is not a URL/);
  });
});

describe('health', () => {
  it('answers liveness without a key, and readiness from the database, the migrations and Redis', async () => {
    const t = await startTestApp('pglite');
    try {
      const anon = restClient(t.baseUrl, null);
      expect((await anon.get('/health/live')).body).toEqual({ object: 'health', status: 'ok' });
      expect((await anon.get('/health')).body).toEqual({ object: 'health', status: 'ok' });
      const ready = await anon.get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        object: 'health',
        status: 'ok',
        checks: { database: { status: 'ok', engine: 'pglite' }, migrations: { status: 'ok', pending: [] }, redis: { status: 'not_configured' } },
      });
      expect(ready.headers.get('request-id')).toMatch(/^req_/);
    } finally {
      await t.close();
    }
  });

  it('is not ready while its PostgreSQL database is gone, and ready again when it is back', async () => {
    const t = await startTestApp('postgres');
    const name = (await t.db.prisma.$queryRaw<{ d: string }[]>`SELECT current_database() AS d`)[0].d;
    const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    try {
      const anon = restClient(t.baseUrl, null);
      expect((await anon.get('/health/ready')).status).toBe(200);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      await admin.query(`ALTER DATABASE "${name}" RENAME TO "${name}_away"`);
      const down = await anon.get('/health/ready');
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ object: 'health', status: 'unavailable', checks: { database: { status: 'unavailable', engine: 'postgres' } } });
      expect((await anon.get('/health/live')).status).toBe(200);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [`${name}_away`]);
      await admin.query(`ALTER DATABASE "${name}_away" RENAME TO "${name}"`);
      expect((await anon.get('/health/ready')).status).toBe(200);
    } finally {
      await admin.end();
      await t.close();
    }
  });

  it('reports Redis out of reach as degraded, still serving', async () => {
    const t = await startTestApp('pglite', { redisUrl: 'redis://127.0.0.1:1' });
    try {
      const ready = await restClient(t.baseUrl, null).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'degraded', checks: { redis: { status: 'unavailable' } } });
      expect((await restClient(t.baseUrl, t.business.test_secret_key).get('/v1/vehicles')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

