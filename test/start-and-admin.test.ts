import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'rental-start-'));
const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', DATABASE_URL: '', REDIS_URL: '' };

/** Run `npm start` and wait for the line that says it listens; collect its output. */
async function startServer(): Promise<{ child: ChildProcessWithoutNullStreams; output: () => string }> {
  const child = spawn('npm', ['start', '--silent'], { cwd: root, env, detached: true });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
    const check = setInterval(() => {
      if (/Try it:|already holds a business/.test(output)) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 100);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return { child, output: () => output };
}

async function stop(child: ChildProcessWithoutNullStreams) {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
}

const admin = (...args: string[]) => run('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, env }).then(
  (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
  (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
);

describe('npm start on an empty embedded database, and the admin command', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('seeds a demo business, prints its test keys and a curl command that works', async () => {
    const { child, output } = await startServer();
    try {
      const text = output();
      const keys = JSON.parse(/\{[\s\S]*?\}/.exec(text.slice(text.indexOf('Seeded')))![0]);
      expect(keys.test_secret_key).toMatch(/^svc_test_sk_[0-9A-Za-z]{32,}$/);
      expect(keys.test_public_key).toMatch(/^svc_test_pk_/);
      const curl = /curl [^\n]+/.exec(text)![0];
      const { stdout } = await run('sh', ['-c', curl]);
      const list = JSON.parse(stdout);
      expect(list).toMatchObject({ object: 'list', has_more: false });
      expect(list.data.length).toBe(3);

      // While the server holds the embedded database, the admin command refuses and changes nothing.
      const refused = await admin('business', 'create', '--name', 'Second', '--json');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/in use by process \d+/);
      expect(refused.stderr).toMatch(/Nothing was changed/);
    } finally {
      await stop(child);
    }

    const listed = await admin('business', 'list', '--json');
    expect(JSON.parse(listed.stdout).map((b: any) => b.name)).toEqual(['Demo Rentals']);
  });

  it('creates a business with its four keys as JSON, and lists, creates and revokes keys', async () => {
    const created = await admin('business', 'create', '--name', 'Acme Cars', '--json');
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(Object.keys(body).sort()).toEqual(['business_id', 'live_public_key', 'live_secret_key', 'test_public_key', 'test_secret_key']);
    expect(body.live_secret_key).toMatch(/^svc_live_sk_/);

    const extra = JSON.parse((await admin('key', 'create', '--business', body.business_id, '--mode', 'test', '--kind', 'secret', '--permissions', 'bookings:read', '--json')).stdout);
    expect(extra.key).toMatch(/^svc_test_sk_/);
    const keys = JSON.parse((await admin('key', 'list', '--business', body.business_id, '--json')).stdout);
    expect(keys).toHaveLength(5);
    expect(JSON.stringify(keys)).not.toContain(extra.key); // secrets are shown once, never listed
    const revoked = await admin('key', 'revoke', '--business', body.business_id, '--key', extra.id, '--json');
    expect(JSON.parse(revoked.stdout)).toEqual({ id: extra.id, revoked: true });

    // A restart does not seed again, and the server starts on the existing data.
    const { child, output } = await startServer();
    await stop(child);
    expect(output()).toContain('already holds a business');
  });
});
