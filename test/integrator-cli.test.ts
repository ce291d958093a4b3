// The integrator's command line (src/cli/rental.ts) as a developer runs it: a real process
// against real server processes, forwarding to a real local receiver that checks signatures
// with the standardwebhooks library.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { createBusiness, type CreatedBusiness } from '../src/platform/businesses.ts';
import { restClient } from './support/app.ts';
import { createTestPostgresDatabase } from './support/postgres.ts';
import { spawnServer } from './support/processes.ts';
import { startReceiver } from './support/receiver.ts';

const root = path.resolve(import.meta.dirname, '..');
type Server = Awaited<ReturnType<typeof spawnServer>>;

/** The CLI as a child process: its output so far, and its exit. */
function cli(args: string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/cli/rental.ts', ...args], { cwd: root, env: { ...process.env, RENTAL_API_KEY: '', RENTAL_API_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

async function run(args: string[], env: Record<string, string> = {}) {
  const c = cli(args, env);
  const code = await c.exited;
  return { code, stdout: c.stdout(), stderr: c.stderr() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(probe: () => T | false | null | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const headersOf = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));

describe('the integrator command line', () => {
  let server: Server;
  let db: Database;
  let business: CreatedBusiness;
  let databaseUrl: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const pg = await createTestPostgresDatabase();
    databaseUrl = pg.url;
    drop = pg.drop;
    db = await openDatabase({ databaseUrl: pg.url });
    business = await createBusiness(db.prisma, { name: 'CLI Rentals' });
    server = await spawnServer({ DATABASE_URL: pg.url });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.close();
    await drop?.();
  });

  const key = () => ({ RENTAL_API_KEY: business.test_secret_key, RENTAL_API_URL: server.baseUrl });
  const bookingState = async (id: string) => (await restClient(server.baseUrl, business.test_secret_key).get(`/v1/bookings/${id}`)).body.state as string;
  const eventTypes = async (bookingId: string) => (await db.prisma.event.findMany({ where: { bookingId }, orderBy: { id: 'asc' } })).map((e) => e.type);

  it('trigger: each scenario runs on a fresh booking (created and printed when none is given) and moves it on', async () => {
    // Given no --booking: a test booking is created first and its id printed
    const paid = await run(['trigger', 'payment-succeeds'], key());
    expect(paid.code, paid.stderr).toBe(0);
    const id = /Created test booking (bk_\w+)/.exec(paid.stdout)![1];
    expect(JSON.parse(paid.stdout.slice(paid.stdout.indexOf('{')))).toMatchObject({ id, event: 'payment.succeeded' });

    // Then the rest of the trip on that booking, each through its scenario name
    for (const [scenario, state] of [['identity-verified', null], ['deposit-secured', null]] as const) {
      const r = await run(['trigger', scenario, '--booking', id], key());
      expect(r.code, `${scenario}: ${r.stdout}${r.stderr}`).toBe(0);
      if (state) expect(await bookingState(id)).toBe(state);
    }
    // The agreement (no scenario of its own in the list) signed through the API, then pickup
    expect((await restClient(server.baseUrl, business.test_secret_key).post(`/v1/test/bookings/${id}/agreement/sign`)).status).toBe(200);
    const started = await run(['trigger', 'start-rental', '--booking', id, '--data', '{"mileage_out": 1000}'], key());
    expect(started.code, started.stdout + started.stderr).toBe(0);
    expect(await bookingState(id)).toBe('active');
    const late = await run(['trigger', 'make-rental-late', '--booking', id], key());
    expect(late.code, late.stdout + late.stderr).toBe(0);
    expect(await bookingState(id)).toBe('late');
    const returned = await run(['trigger', 'submit-return', '--booking', id, '--data', '{"mileage_in": 5000}'], key());
    expect(returned.code, returned.stdout + returned.stderr).toBe(0);
    expect(await bookingState(id)).toBe('return_in_review');
    const types = await eventTypes(id);
    for (const t of ['booking.created', 'payment.succeeded', 'identity.verified', 'deposit.secured', 'rental.started', 'rental.late']) expect(types).toContain(t);

    // Charges: the return's mileage charge fails; another is disputed
    const charges = JSON.parse(returned.stdout).charge_ids as string[];
    expect(charges.length).toBeGreaterThan(0);
    const failed = await run(['trigger', 'charge-fails', '--charge', charges[0]], key());
    expect(failed.code, failed.stdout + failed.stderr).toBe(0);
    expect(JSON.parse(failed.stdout)).toMatchObject({ id: charges[0] });
    const extra = await restClient(server.baseUrl, business.test_secret_key).post(`/v1/bookings/${id}/charges`, { type: 'cleaning', amount_cents: 3000, description: 'interior cleaning' });
    expect(extra.status).toBe(201);
    const disputed = await run(['trigger', 'create-dispute', '--charge', extra.body.id], key());
    expect(disputed.code, disputed.stdout + disputed.stderr).toBe(0);
    expect(JSON.parse(disputed.stdout)).toMatchObject({ object: 'dispute' });

    // payment-fails on a fresh booking: the decline it asks for
    const declined = await run(['trigger', 'payment-fails'], key());
    expect(declined.code, declined.stderr).toBe(0);
    expect(declined.stdout).toContain('card_declined');
    const declinedId = /Created test booking (bk_\w+)/.exec(declined.stdout)![1];
    expect(await eventTypes(declinedId)).toContain('payment.failed');
  });

  it('trigger: a bad scenario name or missing id exits 2 with the list; a 4xx of the API exits 2; an unreachable API exits 1', async () => {
    const bad = await run(['trigger', 'payment-explodes'], key());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Unknown scenario 'payment-explodes'");
    for (const name of ['payment-succeeds', 'payment-fails', 'identity-verified', 'deposit-secured', 'start-rental', 'make-rental-late', 'submit-return', 'charge-fails', 'create-dispute']) expect(bad.stderr).toContain(name);
    const list = await run(['trigger', '--list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('create-dispute');
    expect((await run(['trigger', 'charge-fails'], key())).code).toBe(2);
    expect((await run(['trigger', 'payment-succeeds'], { RENTAL_API_URL: server.baseUrl })).code).toBe(2); // no key
    const missing = await run(['trigger', 'payment-succeeds', '--booking', 'bk_0000000000000000000000000'], key());
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain('resource_missing');
    const live = await run(['trigger', 'payment-succeeds', '--api-key', business.live_secret_key, '--api-url', server.baseUrl]);
    expect(live.code).toBe(2);
    const unreachable = await run(['trigger', 'payment-succeeds', '--api-url', 'http://127.0.0.1:9'], { RENTAL_API_KEY: business.test_secret_key });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('unreachable');
  });

  it('listen: forwards events signed as webhooks are (verified by standardwebhooks), and catches up after the API restarts', async () => {
    const receiver = await startReceiver(() => 200);
    const listener = cli(['listen', '--forward-to', receiver.url, '--events', 'booking.created,booking.canceled'], key());
    try {
      await until(() => /Signing secret: (whsec_\S+)/.exec(listener.stdout()), `the listener ready:\n${listener.stdout()}${listener.stderr()}`);
      const secret = /Signing secret: (whsec_\S+)/.exec(listener.stdout())![1];
      await sleep(300); // the subscription is set up just after the connection is acknowledged

      // When a REST call makes an event
      const api = restClient(server.baseUrl, business.test_secret_key);
      const first = (await api.post('/v1/test/bookings', {})).body.id as string;
      await receiver.waitFor((all) => all.some((r) => r.json?.data?.object?.id === first));
      const got = receiver.received.find((r) => r.json?.data?.object?.id === first)!;
      // Then it arrives as a webhook would, and verifies with the printed secret
      const verified = new Webhook(secret).verify(got.body, headersOf(got.headers)) as { id: string; type: string; object: string };
      expect(verified).toMatchObject({ object: 'event', type: 'booking.created' });
      expect(got.headers['webhook-id']).toBe(verified.id);
      const stored = await db.prisma.event.findUniqueOrThrow({ where: { id: verified.id } });
      expect(stored.type).toBe('booking.created');
      await until(() => listener.stdout().includes(`${verified.id}  -> POST ${receiver.url} [200]`), 'the line about the forwarded event');
      // Events not asked for are not forwarded
      await api.post(`/v1/test/bookings/${first}/payment/succeed`);

      // When the API goes away, an event is made meanwhile (through another server on the same
      // database), and the API comes back on the same address
      const port = new URL(server.baseUrl).port;
      await server.stop();
      await until(() => /lost/.test(listener.stdout()), 'the listener noticing the drop');
      const other = await spawnServer({ DATABASE_URL: databaseUrl });
      let missed: string;
      try {
        missed = (await restClient(other.baseUrl, business.test_secret_key).post('/v1/test/bookings', {})).body.id as string;
      } finally {
        await other.stop();
      }
      server = await spawnServer({ DATABASE_URL: databaseUrl, PORT: port });

      // Then the listener reconnects and forwards the missed event from GET /v1/events, once
      await receiver.waitFor((all) => all.some((r) => r.json?.data?.object?.id === missed), 30_000);
      expect(listener.stdout()).toContain('catching up');
      const after = (await api.post('/v1/test/bookings', {})).body.id as string;
      await receiver.waitFor((all) => all.some((r) => r.json?.data?.object?.id === after));
      const ids = receiver.received.map((r) => r.json.id as string);
      expect(new Set(ids).size).toBe(ids.length);
      expect(receiver.received.map((r) => r.json.type)).not.toContain('payment.succeeded');
      for (const r of receiver.received) expect(() => new Webhook(secret).verify(r.body, headersOf(r.headers))).not.toThrow();
    } finally {
      listener.child.kill('SIGINT');
      expect(await listener.exited).toBe(0);
      await receiver.close();
    }
  });

  it('listen: arguments are checked before anything is sent (exit 2), a refused key too', async () => {
    expect((await run(['listen'], key())).code).toBe(2);
    expect((await run(['listen', '--forward-to', 'ftp://x'], key())).code).toBe(2);
    const unknownEvent = await run(['listen', '--forward-to', 'http://127.0.0.1:9/x', '--events', 'booking.exploded'], key());
    expect(unknownEvent.code).toBe(2);
    expect(unknownEvent.stderr).toContain('booking.created');
    const badKey = await run(['listen', '--forward-to', 'http://127.0.0.1:9/x'], { RENTAL_API_KEY: 'svc_test_sk_nope', RENTAL_API_URL: server.baseUrl });
    expect(badKey.code).toBe(2);
  });
});
