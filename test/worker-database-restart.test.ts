// `npm run worker` outlives a PostgreSQL restart: its timers are unref'd and its sockets are
// the database's, so once the server dropped them nothing held the process, which exited 0
// and delivered nothing more (found by the chaos test).
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { root, startPrivatePostgres, type PrivatePostgres } from './chaos/infra.ts';

let pg: PrivatePostgres | undefined;
afterAll(async () => pg?.stop());

describe('the separate worker and a PostgreSQL restart', () => {
  it('keeps running through the restart, until it is told to stop', { timeout: 180_000 }, async () => {
    pg = await startPrivatePostgres();
    await (await openDatabase({ databaseUrl: pg.url })).close(); // migrated, as npm start leaves it
    const worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], { cwd: root, env: { ...process.env, DATABASE_URL: pg.url, LOG_LEVEL: 'info', HOLD_SWEEP_MS: '500' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    let out = '';
    worker.stdout.on('data', (d) => (out += d));
    worker.stderr.on('data', (d) => (out += d));
    for (let i = 0; i < 600 && !out.includes('webhook worker delivering'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('webhook worker delivering');

    await pg.restartImmediate();
    const outcome = await Promise.race([exited.then((code) => `exited with ${code}`), new Promise((r) => setTimeout(() => r('running'), 5_000))]);
    expect(outcome, out.slice(-2000)).toBe('running');

    worker.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
