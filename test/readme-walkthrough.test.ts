import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * The README's "A walk through" runs as a reader runs it: `npm start` on a fresh embedded
 * database, the test secret key and the address taken from what it prints, then the
 * section's shell blocks pasted into bash (curl and node, nothing else).
 */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

/** The shell blocks of the README's walk-through section, in order. */
function walkthroughBlocks(): string[] {
  const start = readme.indexOf('## A walk through');
  expect(start, 'README.md has no "## A walk through" section').toBeGreaterThanOrEqual(0);
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next === -1 ? undefined : next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'rental-walk-'));
let child: ChildProcessWithoutNullStreams;
let output = '';

beforeAll(async () => {
  const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', DATABASE_URL: '', REDIS_URL: '' };
  child = spawn('npm', ['start', '--silent'], { cwd: root, env, detached: true });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
    const check = setInterval(() => {
      if (output.includes('Try it:')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 100);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
});

afterAll(async () => {
  if (child?.exitCode === null) {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the README's walk through", () => {
  it('books a vehicle with unlimited miles for a period ahead of today, then cancels it', async () => {
    const api = /listening on (http:\/\/\S+)/.exec(output)![1];
    const key = JSON.parse(/\{[\s\S]*?\}/.exec(output.slice(output.indexOf('Seeded')))![0]).test_secret_key as string;

    const blocks = walkthroughBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    const [first, ...rest] = blocks;
    // The reader sets these two lines from the start-up output.
    expect(first).toMatch(/^KEY=svc_test_sk_\.\.\./m);
    expect(first).toMatch(/^API=http:\/\/127\.0\.0\.1:3000$/m);
    const filled = first.replace(/^KEY=.*$/m, `KEY=${key}`).replace(/^API=.*$/m, `API=${api}`);
    const script = ['set -euo pipefail', filled, ...rest].join('\n');

    const { stdout } = await run('bash', ['-c', script], { cwd: dataDir, timeout: 60_000 }).catch((e) => {
      throw new Error(`the walk-through failed (exit ${e.code}):\n${e.stderr}\n${e.stdout}`);
    });
    const answers = stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
    const of = (object: string) => answers.filter((a) => a.object === object);

    const [fleet] = of('list');
    expect(fleet.data.length).toBeGreaterThan(1);

    const [quote] = of('quote');
    expect(quote).toMatchObject({ unlimited_miles: true, days: 3, available: true, included_miles: null });
    expect(quote.unlimited_miles_fee_cents).toBeGreaterThan(0);
    expect(Date.parse(quote.start_at)).toBeGreaterThan(Date.now());
    const vehicle = fleet.data.find((v: any) => v.id === quote.vehicle_id);
    expect(vehicle.unlimited_miles_daily_cents).not.toBeNull();

    const [created, canceled] = of('booking');
    expect(created).toMatchObject({ state: 'pending_payment', vehicle_id: quote.vehicle_id, unlimited_miles: true, total_cents: quote.total_cents });
    expect(created.id).toMatch(/^bk_/);
    expect(of('payment')[0]).toMatchObject({ booking_id: created.id, state: 'requires_payment', amount_cents: quote.total_cents });
    expect(canceled).toMatchObject({ id: created.id, state: 'canceled' });

    // The GraphQL block lists it too, canceled.
    const graphql = answers.find((a) => a.data?.bookings);
    expect(graphql.data.bookings.edges.map((e: any) => e.node)).toContainEqual(expect.objectContaining({ id: created.id, state: 'canceled' }));
  });
});
