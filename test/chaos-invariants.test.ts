import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ChaosClient, type Attempt, type Op } from './chaos/client.ts';
import type { ServiceProcess } from './chaos/infra.ts';
import { planFaults } from './chaos/faults.ts';
import { booksProblems, checkInvariants, deliveryStats, type Books, type RunData } from './chaos/invariants.ts';
import { verify } from './chaos/receiver.ts';
import { Rng } from './chaos/rng.ts';

/*
 * The chaos test's checks on fabricated runs: a clean run passes every invariant, and each
 * violation planted in it is caught by its invariant (and by no other), so that a pass of the
 * chaos test means something.
 */

const answered = (status: number, extra: Partial<Attempt> = {}): Attempt => ({ target: 'api-1', startedAt: 0, ms: 20, status, replayed: false, targetDied: false, envelope: status >= 300 ? true : undefined, ...extra });
const lost = (failure: 'network' | 'timeout', extra: Partial<Attempt> = {}): Attempt => ({ target: 'api-2', startedAt: 0, ms: failure === 'timeout' ? 15_000 : 3, status: null, failure, code: failure === 'timeout' ? 'timeout' : 'ECONNRESET', targetDied: failure === 'network', ...extra });

function op(id: number, name: string, key: string | null, attempts: Attempt[], final: Op['final'], extra: Partial<Op> = {}): Op {
  return { id, story: 's1', name, method: 'POST', path: `/v1/${name}`, body: {}, key, attempts, final, settled: true, startedAt: 0, endedAt: 100, ...extra };
}

const PAID: Books = {
  booking: { id: 'bk_1', state: 'confirmed', total_cents: 10_000 },
  payment: { state: 'succeeded', amount_cents: 10_000, amount_refunded_cents: 0 },
  deposit: { state: 'required', amount_cents: 25_000, captured_cents: 0 },
  charges: [],
  transactions: [{ id: 'tx_1', type: 'payment', status: 'succeeded', amount_cents: 10_000, charge_id: null }],
};

const TRIP: Books = {
  booking: { id: 'bk_9', state: 'completed', total_cents: 9_800 },
  payment: { state: 'partially_refunded', amount_cents: 9_800, amount_refunded_cents: 800 },
  deposit: { state: 'partially_captured', amount_cents: 25_000, captured_cents: 4_000 },
  charges: [
    { id: 'chg_1', state: 'succeeded', amount_cents: 4_000 },
    { id: 'chg_2', state: 'succeeded', amount_cents: 1_500 },
    { id: 'chg_3', state: 'pending', amount_cents: 700 },
  ],
  transactions: [
    { id: 'tx_1', type: 'payment', status: 'succeeded', amount_cents: 9_800, charge_id: null },
    { id: 'tx_2', type: 'refund', status: 'succeeded', amount_cents: 800, charge_id: null },
    { id: 'tx_3', type: 'deposit_hold', status: 'succeeded', amount_cents: 25_000, charge_id: null },
    { id: 'tx_4', type: 'deposit_capture', status: 'succeeded', amount_cents: 4_000, charge_id: 'chg_1' },
    { id: 'tx_5', type: 'deposit_release', status: 'succeeded', amount_cents: 21_000, charge_id: null },
    { id: 'tx_6', type: 'charge', status: 'succeeded', amount_cents: 1_500, charge_id: 'chg_2' },
    { id: 'tx_7', type: 'charge', status: 'failed', amount_cents: 700, charge_id: 'chg_3' },
  ],
};

/** A run in which everything held: a booking made, paid after a lost answer, a declined card, a PostgreSQL restart. */
function cleanRun(): RunData {
  const created = { id: 'bk_1', object: 'booking', state: 'pending_payment' };
  const ops = [
    op(1, 'create_booking', 'k-create', [answered(201)], { status: 201, body: created, replayed: false }, { effect: { object: 'booking', id: 'bk_1', state: 'pending_payment' } }),
    // The first answer was lost with its process; the retry replays it.
    op(2, 'pay', 'k-pay', [lost('network'), answered(200, { replayed: true })], { status: 200, body: { id: 'bk_1', state: 'confirmed' }, replayed: true }, { effect: { object: 'booking', id: 'bk_1', state: 'confirmed' } }),
    op(3, 'pay_declined', 'k-decline', [answered(402, { code: 'card_declined' })], { status: 402, body: { error: { code: 'card_declined' } }, replayed: false }, { normal: [402] }),
    op(4, 'create_booking', 'k-race', [answered(503, { retryAfter: '1', code: 'service_unavailable' }), answered(409, { code: 'vehicle_unavailable' })], { status: 409, body: { error: { code: 'vehicle_unavailable' } }, replayed: false }),
  ];
  return {
    ops,
    postgresDown: [{ from: 5_000, to: 5_600 }],
    faults: [
      { at: 1_000, kind: 'kill_api', target: 0, downMs: 500, startedAt: 1_000, process: 'api-1', readyMs: 2_500 },
      { at: 5_000, kind: 'restart_postgres', downMs: 0, startedAt: 5_000, process: 'postgres', postgresDownMs: 600, poolRecoveryMs: { 'api-1': 150, 'api-2': 'restarted' } },
    ],
    processes: [
      { name: 'api-1', kind: 'api', restarts: [{ process: 'api-1', readyMs: 2_500, after: 'kill' }], unexpectedExits: [] },
      { name: 'worker', kind: 'worker', restarts: [{ process: 'worker', readyMs: 900, after: 'kill' }], unexpectedExits: [] },
    ],
    deliveries: [
      { webhookId: 'evt_1', type: 'booking.created', valid: true, answered: 204, at: 1 },
      { webhookId: 'evt_2', type: 'payment.succeeded', valid: true, answered: 500, at: 2 },
      { webhookId: 'evt_2', type: 'payment.succeeded', valid: true, answered: 204, at: 3 },
      { webhookId: 'evt_3', type: 'booking.confirmed', valid: true, answered: 204, at: 4 },
      { webhookId: 'evt_3', type: 'booking.confirmed', valid: true, answered: 204, at: 5 },
      { webhookId: 'evt_4', type: 'payment.failed', valid: true, answered: 204, at: 6 },
    ],
    db: {
      events: [
        { id: 'evt_1', type: 'booking.created', requestId: 'req_a', idempotencyKey: 'k-create' },
        { id: 'evt_2', type: 'payment.succeeded', requestId: 'req_b', idempotencyKey: 'k-pay' },
        { id: 'evt_3', type: 'booking.confirmed', requestId: 'req_b', idempotencyKey: 'k-pay' },
        { id: 'evt_4', type: 'payment.failed', requestId: 'req_c', idempotencyKey: 'k-decline' },
      ],
      bookings: [
        { id: 'bk_1', vehicleId: 'veh_1', state: 'confirmed', startAt: 0, endAt: 10 },
        { id: 'bk_2', vehicleId: 'veh_1', state: 'canceled', startAt: 5, endAt: 15 },
        { id: 'bk_3', vehicleId: 'veh_1', state: 'pending_payment', startAt: 10, endAt: 20 },
        { id: 'bk_4', vehicleId: 'veh_2', state: 'booked', startAt: 5, endAt: 15 },
      ],
      keyedBookings: [{ id: 'bk_1', chaosKey: 'k-create' }],
      vehicles: [],
      charges: [],
    },
    api: {
      states: { booking: { bk_1: 'confirmed' }, payment: {}, deposit: {}, charge: {}, vehicle: {} },
      books: [structuredClone(PAID), structuredClone(TRIP)],
      replays: [
        { opId: 1, status: 201, body: created, replayed: true },
        { opId: 2, status: 200, body: { id: 'bk_1', state: 'confirmed' }, replayed: true },
        { opId: 3, status: 402, body: { error: { code: 'card_declined' } }, replayed: true },
        { opId: 4, status: 409, body: { error: { code: 'vehicle_unavailable' } }, replayed: true },
      ],
    },
  };
}

/** The invariants a run violates, and the messages. */
function failing(run: RunData) {
  const results = checkInvariants(run);
  return { names: results.filter((r) => r.violations.length).map((r) => r.name), messages: results.flatMap((r) => r.violations.map((v) => v.message)) };
}

describe('chaos invariants on fabricated runs', () => {
  it('a clean run passes every invariant, each having checked something', () => {
    const results = checkInvariants(cleanRun());
    expect(results.filter((r) => r.violations.length)).toEqual([]);
    for (const r of results.filter((r) => r.name !== 'no_unexpected_exit')) expect(r.checked, r.name).toBeGreaterThan(0);
  });

  const planted: [string, string, (run: RunData) => void, RegExp][] = [
    ['no_500', 'an attempt answered 500 (later retried to success)', (run) => run.ops[1].attempts.splice(1, 0, answered(500, { code: 'internal_error' })), /answered 500 internal_error/],
    ['no_500', 'an attempt answered 502', (run) => run.ops[0].attempts.unshift(answered(502, { code: 'processor_unavailable' })), /answered 502/],
    ['no_500', 'a deadlock answered 500, named from the log by its Request-Id', (run) => {
      run.ops[0].attempts.unshift(answered(500, { code: 'internal_error', requestId: 'req_dead' }));
      run.processes[0].logCauses = { req_dead: 'deadlock (40P01)' };
    }, /answered 500 internal_error on api-1 \(its log: deadlock \(40P01\)\)/],
    ['no_500', 'a 500 while PostgreSQL restarted', (run) => run.ops[3].attempts.unshift(answered(500, { code: 'internal_error', startedAt: 5_100 })), /answered 500 internal_error on api-1 while PostgreSQL restarted/],
    ['unavailable_is_503_with_retry_after', 'a 503 without Retry-After', (run) => (run.ops[3].attempts[0].retryAfter = null), /503 without a Retry-After/],
    ['unavailable_is_503_with_retry_after', 'a 503 outside the envelope', (run) => (run.ops[3].attempts[0].envelope = false), /503 not in the error envelope/],
    ['no_hang', 'a live process that did not answer', (run) => run.ops[0].attempts.unshift(lost('timeout')), /got no answer in 15000 ms from api-2, which stayed up/],
    ['no_hang', 'a call that never got an answer to act on', (run) => (run.ops[3].settled = false), /never got an answer to act on/],
    ['durable_2xx', 'a 2xx whose object is gone', (run) => (run.api.states.booking.bk_1 = null), /which the API does not find/],
    ['durable_2xx', 'a paid booking back to pending_payment (unreachable from confirmed)', (run) => (run.api.states.booking.bk_1 = 'pending_payment'), /now 'pending_payment', which the booking table cannot reach from 'confirmed'/],
    ['one_effect_per_key', 'a key whose events come from two requests', (run) => {
      run.db.events.push({ id: 'evt_5', type: 'booking.confirmed', requestId: 'req_z', idempotencyKey: 'k-pay' });
      run.deliveries.push({ webhookId: 'evt_5', type: 'booking.confirmed', valid: true, answered: 204, at: 7 });
    }, /key k-pay \(pay\) ran 2 times/],
    ['one_effect_per_key', 'a key that made two bookings', (run) => run.db.keyedBookings.push({ id: 'bk_7', chaosKey: 'k-create' }), /made 2 objects/],
    ['one_effect_per_key', 'a key that took effect answered 409 (the retry ran again)', (run) => {
      run.ops[1].final = { status: 409, body: { error: { code: 'invalid_state_transition' } }, replayed: false };
      run.api.replays[1] = { opId: 2, status: 409, body: { error: { code: 'invalid_state_transition' } }, replayed: true };
    }, /took effect \(payment.succeeded, booking.confirmed\) but the client was answered 409 invalid_state_transition/],
    ['one_effect_per_key', 'a replay that runs again instead of replaying', (run) => (run.api.replays[0] = { opId: 1, status: 409, body: { error: { code: 'vehicle_unavailable' } }, replayed: false }), /sent again, it answered 409 \(not a replay\) instead of replaying 201/],
    ['no_overlap', 'two blocking bookings of a vehicle overlap', (run) => (run.db.bookings[2].startAt = 9), /bookings bk_1 \(confirmed\) and bk_3 \(pending_payment\) overlap/],
    ['no_overlap', 'a booking overlapping an earlier one that is not its neighbour', (run) => run.db.bookings.push({ id: 'bk_5', vehicleId: 'veh_2', state: 'booked', startAt: 6, endAt: 8 }, { id: 'bk_6', vehicleId: 'veh_2', state: 'booked', startAt: 9, endAt: 11 }), /bk_4 \(booked\) and bk_6/],
    ['transactions_reconcile', 'a refund left pending', (run) => run.api.books[0].transactions.push({ id: 'tx_9', type: 'refund', status: 'pending', amount_cents: 10_000, charge_id: null }), /refund transaction tx_9 of 10000 is still pending/],
    ['transactions_reconcile', 'a charge left processing', (run) => (run.api.books[1].charges[2].state = 'processing'), /charge chg_3 is still processing/],
    ['webhooks_delivered', 'an event never delivered', (run) => (run.deliveries = run.deliveries.filter((d) => d.webhookId !== 'evt_4')), /event evt_4 \(payment.failed\) was never delivered/],
    ['webhooks_delivered', 'an event only ever answered 500', (run) => (run.deliveries = run.deliveries.filter((d) => !(d.webhookId === 'evt_2' && d.answered === 204))), /event evt_2 .* was never delivered/],
    ['webhooks_delivered', 'a delivery whose signature fails', (run) => run.deliveries.push({ webhookId: 'evt_1', type: 'booking.created', valid: false, problem: 'signature: No matching signature found', answered: 0, at: 9 }), /failed verification: signature/],
    ['webhooks_delivered', 'a delivery of an event the database does not have', (run) => run.deliveries.push({ webhookId: 'evt_ghost', type: 'booking.created', valid: true, answered: 204, at: 9 }), /an event the database does not have/],
    ['restart_within_10s', 'a restart that took 12 s', (run) => run.processes[0].restarts.push({ process: 'api-1', readyMs: 12_000, after: 'kill' }), /api-1 served again 12000 ms after its restart/],
    ['pool_recovers', 'a pool that never recovered', (run) => (run.faults[1].poolRecoveryMs!['api-1'] = 'never'), /api-1 served a database read again never/],
    ['pool_recovers', 'a pool that took 11 s', (run) => (run.faults[1].poolRecoveryMs!['api-1'] = 11_000), /11000 ms after PostgreSQL came back/],
    ['no_unexpected_exit', 'a worker that exited by itself', (run) => run.processes[1].unexpectedExits.push({ at: 1, code: 0, signal: null, output: '' }), /worker exited by itself \(0\)/],
    ['faults_carried_out', 'a fault that failed', (run) => (run.faults[0].error = 'api-1 not serving after 3 starts'), /failed: api-1 not serving/],
  ];
  it.each(planted)('%s catches %s', (name, _what, plant, message) => {
    const run = cleanRun();
    plant(run);
    const { names, messages } = failing(run);
    expect(names).toEqual([name]);
    expect(messages.join('\n')).toMatch(message);
  });
});

describe('the books of a booking', () => {
  it('reconcile for a paid booking and for a whole trip (refund, hold, capture paying a charge, release, a collected and a declined charge)', () => {
    expect(booksProblems(PAID)).toEqual([]);
    expect(booksProblems(TRIP)).toEqual([]);
  });

  it("keep an extension's refund apart from the payment's: a canceled extended booking reconciles; an extension refunded beyond its charge does not", () => {
    const extended: Books = structuredClone(PAID);
    extended.booking = { id: 'bk_1', state: 'refunded', total_cents: 15_000 };
    extended.payment = { state: 'refunded', amount_cents: 10_000, amount_refunded_cents: 10_000 };
    extended.transactions.push(
      { id: 'tx_2', type: 'extension', status: 'succeeded', amount_cents: 5_000, charge_id: null },
      { id: 'tx_3', type: 'refund', status: 'succeeded', amount_cents: 10_000, charge_id: null, refunded_transaction_id: null },
      { id: 'tx_4', type: 'refund', status: 'succeeded', amount_cents: 5_000, charge_id: null, refunded_transaction_id: 'tx_2' },
    );
    expect(booksProblems(extended)).toEqual([]);
    extended.transactions.push({ id: 'tx_5', type: 'refund', status: 'succeeded', amount_cents: 1, charge_id: null, refunded_transaction_id: 'tx_2' });
    expect(booksProblems(extended)).toEqual(['extension tx_2 refunded more than it charged']);
  });

  it.each([
    ['the refunded amount is not the refunds', (b: Books) => (b.payment!.amount_refunded_cents = 900), /payment refunded 900 but its succeeded refunds add up to 800/],
    ['a payment succeeded without its transaction', (b: Books) => (b.transactions = b.transactions.filter((t) => t.id !== 'tx_1')), /payment partially_refunded for 9800 but its succeeded payment transactions are \[\]/],
    ['a payment collected twice', (b: Books) => b.transactions.push({ id: 'tx_8', type: 'payment', status: 'succeeded', amount_cents: 9_800, charge_id: null }), /succeeded payment transactions are \[9800, 9800\]/],
    ['the captured amount is not the captures', (b: Books) => (b.deposit!.captured_cents = 5_000), /deposit captured 5000 but its succeeded captures add up to 4000/],
    ['a partial capture whose rest was not released', (b: Books) => (b.transactions = b.transactions.filter((t) => t.type !== 'deposit_release')), /4000 captured \+ 0 released is not its 25000/],
    ['a charge collected twice', (b: Books) => b.transactions.push({ id: 'tx_8', type: 'charge', status: 'succeeded', amount_cents: 1_500, charge_id: 'chg_2' }), /charge chg_2 succeeded for 1500 but was collected \[1500, 1500\]/],
    ['a pending charge that was collected', (b: Books) => b.transactions.push({ id: 'tx_8', type: 'charge', status: 'succeeded', amount_cents: 700, charge_id: 'chg_3' }), /charge chg_3 pending but collected 1 time/],
    ['a total that is not the payment plus extensions', (b: Books) => (b.booking.total_cents = 12_000), /booking total 12000 is not its payment 9800 plus extensions 0/],
    ['a deposit held twice', (b: Books) => b.transactions.push({ id: 'tx_8', type: 'deposit_hold', status: 'succeeded', amount_cents: 25_000, charge_id: null }), /succeeded holds are \[25000, 25000\]/],
  ])('catch %s', (_what, plant, message) => {
    const books = structuredClone(TRIP);
    plant(books);
    expect(booksProblems(books).join('\n')).toMatch(message);
  });
});

describe('webhook deliveries', () => {
  const secret = `whsec_${Buffer.from('chaos-test-secret-0123456789abcd').toString('base64')}`;
  const signer = new Webhook(secret);
  const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'booking.created' });
  const headers = (id: string, payload = body) => {
    const timestamp = new Date();
    return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': signer.sign(id, timestamp, payload) };
  };

  it('verifies a signed delivery, and refuses a tampered body, another secret, or a body whose id is not the webhook-id', () => {
    expect(verify(new Webhook(secret), headers('evt_1'), body)).toMatchObject({ webhookId: 'evt_1', type: 'booking.created', valid: true });
    expect(verify(new Webhook(secret), headers('evt_1'), body.replace('created', 'creatEd'))).toMatchObject({ valid: false, problem: expect.stringMatching(/^signature/) });
    expect(verify(new Webhook(`whsec_${Buffer.from('another-secret-0123456789abcdefg').toString('base64')}`), headers('evt_1'), body)).toMatchObject({ valid: false });
    expect(verify(new Webhook(secret), headers('evt_2'), body)).toMatchObject({ valid: false, problem: 'body id evt_1 is not the webhook-id' });
  });

  it('counts duplicates, and those after a 2xx apart', () => {
    expect(deliveryStats(cleanRun())).toEqual({ events: 4, delivered: 4, deliveries: 6, duplicates: 2, duplicatesAfterSuccess: 1, invalid: 0 });
  });
});

describe('seeded schedules', () => {
  const options = { durationMs: 60_000, apis: 3, apiKillEveryMs: 4_000, workerKillEveryMs: 10_000, redisKills: 1, postgresRestarts: 2 };

  it('draws the same faults from the same seed, and others from another', () => {
    expect(planFaults(new Rng(7), options)).toEqual(planFaults(new Rng(7), options));
    expect(planFaults(new Rng(7), options)).not.toEqual(planFaults(new Rng(8), options));
  });

  it('plans every kind of fault within the run, and no API kill while the pools recover from a PostgreSQL restart', () => {
    const plan = planFaults(new Rng(11), options);
    expect(new Set(plan.map((f) => f.kind))).toEqual(new Set(['kill_api', 'kill_worker', 'kill_redis', 'restart_postgres']));
    expect(plan.every((f) => f.at > 0 && f.at < options.durationMs)).toBe(true);
    for (const restart of plan.filter((f) => f.kind === 'restart_postgres')) {
      expect(plan.filter((f) => f.kind === 'kill_api' && f.at > restart.at - 1_000 && f.at < restart.at + 12_000)).toEqual([]);
    }
  });

  it('gives each story its own stream: the same choices whatever was drawn elsewhere', () => {
    const a = new Rng(3);
    const b = new Rng(3);
    b.fork('story-0').int(0, 100);
    b.int(0, 100);
    const draw = (r: Rng) => Array.from({ length: 5 }, () => r.fork('story-1').int(0, 1_000_000));
    expect(draw(a)).toEqual(draw(b));
  });
});

describe('the chaos client', () => {
  /** A server answering each request by the script (its arrival number); 'drop' closes the connection unanswered. */
  async function scripted(script: (n: number) => 'drop' | { status: number; headers?: Record<string, string>; body: unknown }) {
    const seen: { key: string | undefined; body: string }[] = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const step = script(seen.length);
        seen.push({ key: req.headers['idempotency-key'] as string | undefined, body });
        if (step === 'drop') return void req.socket.destroy();
        res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
        res.end(JSON.stringify(step.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const api = { name: 'api-1', baseUrl: `http://127.0.0.1:${port}`, generation: 1, downSince: null } as unknown as ServiceProcess;
    return { api, seen, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
  }
  const envelope = (code: string) => ({ error: { type: 'api_error', code, message: code } });

  it('retries a dropped connection, a 503 (after its Retry-After), a 500 and idempotency_key_in_use with the same key and body, then acts on the answer', async () => {
    const script = ['drop', { status: 503, headers: { 'retry-after': '1' }, body: envelope('service_unavailable') }, { status: 500, body: envelope('internal_error') }, { status: 409, body: envelope('idempotency_key_in_use') }, { status: 201, body: { id: 'bk_1' } }] as const;
    const server = await scripted((n) => script[Math.min(n, script.length - 1)]);
    try {
      const ops: Op[] = [];
      const client = new ChaosClient({ apis: [server.api], key: 'sk', opDeadlineMs: 20_000, ops });
      const op = await client.call(new Rng(1), 's1', 'create_booking', 'POST', '/v1/bookings', { vehicle_id: 'veh_1' }, 'k-1');
      expect(op.settled).toBe(true);
      expect(op.final).toMatchObject({ status: 201, body: { id: 'bk_1' } });
      expect(op.attempts.map((a) => a.status ?? a.failure)).toEqual(['network', 503, 500, 409, 201]);
      expect(op.attempts[1]).toMatchObject({ retryAfter: '1', envelope: true, code: 'service_unavailable' });
      expect(op.attempts[2].startedAt - op.attempts[1].startedAt).toBeGreaterThanOrEqual(500); // waited (half of) the Retry-After at least
      expect(server.seen.map((r) => r.key)).toEqual(['k-1', 'k-1', 'k-1', 'k-1', 'k-1']);
      expect(new Set(server.seen.map((r) => r.body))).toEqual(new Set([JSON.stringify({ vehicle_id: 'veh_1' })]));
      expect(ops).toEqual([op]);
    } finally {
      await server.close();
    }
  });

  it('acts on a 4xx at once, and gives up at its deadline on a key that stays in use', async () => {
    const refused = await scripted(() => ({ status: 409, body: envelope('vehicle_unavailable') }));
    const stuck = await scripted(() => ({ status: 409, body: envelope('idempotency_key_in_use') }));
    try {
      const client = (api: ServiceProcess) => new ChaosClient({ apis: [api], key: 'sk', opDeadlineMs: 1_500, ops: [] });
      const lost = await client(refused.api).call(new Rng(2), 's1', 'create_booking', 'POST', '/v1/bookings', {}, 'k-2');
      expect(lost).toMatchObject({ settled: true, final: { status: 409 } });
      expect(lost.attempts).toHaveLength(1);
      const waited = await client(stuck.api).call(new Rng(3), 's1', 'pay', 'POST', '/v1/pay', {}, 'k-3');
      expect(waited.settled).toBe(false);
      expect(waited.attempts.length).toBeGreaterThan(1);
      expect(waited.endedAt - waited.startedAt).toBeGreaterThanOrEqual(1_500);
    } finally {
      await Promise.all([refused.close(), stuck.close()]);
    }
  });
});
