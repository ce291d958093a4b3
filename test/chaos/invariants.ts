// The chaos test's invariants: pure checks over what the run recorded (every attempt of every
// call, the faults, the restarts, the webhook deliveries) and what it read afterwards from the
// API and the database. Each returns its violations with the evidence; test/chaos-invariants
// .test.ts shows each one failing on fabricated data with the violation planted.
import { bookingMachine } from '../../src/domain/bookings/booking-state.ts';
import { chargeMachine } from '../../src/domain/charges/charge-state.ts';
import { depositMachine } from '../../src/domain/deposits/deposit-state.ts';
import { paymentMachine } from '../../src/domain/payments/payment-state.ts';
import type { Effect, Op } from './client.ts';
import type { FaultRecord } from './faults.ts';
import type { Restart } from './infra.ts';
import type { Delivery } from './receiver.ts';

/** The promise of the issue: a restarted process serves again within 10 s, and so does a pool after a database restart. */
export const READY_LIMIT_MS = 10_000;

export interface EventRow {
  id: string;
  type: string;
  requestId: string | null;
  idempotencyKey: string | null;
}
export interface BookingRow {
  id: string;
  vehicleId: string;
  state: string;
  startAt: number;
  endAt: number;
}
/** A row made by a keyed create, with the key the harness wrote into its metadata. */
export interface KeyedRow {
  id: string;
  chaosKey: string;
}
export interface Transaction {
  id: string;
  type: string;
  status: string;
  amount_cents: number;
  charge_id: string | null;
  /** A refund of an extension: the extension it gives back. */
  refunded_transaction_id?: string | null;
}
/** One booking's money as the API shows it. */
export interface Books {
  booking: { id: string; state: string; total_cents: number };
  payment: { state: string; amount_cents: number; amount_refunded_cents: number } | null;
  deposit: { state: string; amount_cents: number; captured_cents: number } | null;
  charges: { id: string; state: string; amount_cents: number }[];
  transactions: Transaction[];
}
/** The same request sent again after the run, with its key: it must replay the answer the client acted on. */
export interface ReplayProbe {
  opId: number;
  status: number | null;
  body: unknown;
  replayed: boolean;
}
export interface ProcessRecord {
  name: string;
  kind: 'api' | 'worker';
  /** Lines of its logs naming database errors, by kind (for the report). */
  logCounts?: Record<string, number>;
  /** The database error its log names for a request, by Request-Id. */
  logCauses?: Record<string, string>;
  restarts: Restart[];
  unexpectedExits: { at: number; code: number | null; signal: string | null; output: string }[];
}

export interface RunData {
  ops: Op[];
  faults: FaultRecord[];
  /** When PostgreSQL was down (pg_ctl restart -m immediate until it accepted connections again). */
  postgresDown: { from: number; to: number }[];
  processes: ProcessRecord[];
  deliveries: Delivery[];
  /** Read from the database: our business's test-mode rows (events since the endpoint was made). */
  db: { events: EventRow[]; bookings: BookingRow[]; vehicles: KeyedRow[]; keyedBookings: KeyedRow[]; charges: KeyedRow[] };
  /** Read from the API after the run. */
  api: {
    /** Current state of each object a 2xx answer named (null: the API does not find it). */
    states: Record<Effect['object'], Record<string, string | null>>;
    books: Books[];
    replays: ReplayProbe[];
  };
}

export interface Violation {
  /** What broke, in a line. */
  message: string;
  /** The facts behind it (calls, ids, answers). */
  evidence?: unknown;
}

export interface InvariantResult {
  name: string;
  description: string;
  violations: Violation[];
  /** What the check looked at, for the report (so a pass over nothing is visible). */
  checked: number;
}

type Check = (run: RunData) => { violations: Violation[]; checked: number };

const ok2xx = (status: number | undefined | null) => status !== undefined && status !== null && status >= 200 && status < 300;
const brief = (op: Op) => ({ op: op.id, story: op.story, name: op.name, key: op.key, path: op.path, final: op.final && { status: op.final.status, code: op.final.body?.error?.code, replayed: op.final.replayed } });

// ------------------------------------------------------------------------------ answers

export const no500: Check = (run) => {
  const violations: Violation[] = [];
  let checked = 0;
  for (const op of run.ops) {
    for (const a of op.attempts) {
      checked++;
      if (a.status === null || a.status < 500 || a.status === 503) continue;
      const whilePostgresRestarted = run.postgresDown.some((d) => a.startedAt < d.to + 1_000 && a.startedAt + a.ms > d.from);
      const cause = a.requestId ? run.processes.find((p) => p.name === a.target)?.logCauses?.[a.requestId] : undefined;
      violations.push({ message: `${op.method} ${op.path} answered ${a.status} ${a.code ?? ''} on ${a.target}${whilePostgresRestarted ? ' while PostgreSQL restarted' : ''}${cause ? ` (its log: ${cause})` : ''}`, evidence: { ...brief(op), attempt: a } });
    }
  }
  return { violations, checked };
};

export const unavailableAnswers: Check = (run) => {
  const violations: Violation[] = [];
  let checked = 0;
  for (const op of run.ops) {
    for (const a of op.attempts) {
      if (a.status !== 503) continue;
      checked++;
      const after = Number(a.retryAfter);
      if (!(a.retryAfter && Number.isInteger(after) && after >= 1)) violations.push({ message: `503 without a Retry-After of whole seconds (${a.retryAfter ?? 'none'}) on ${op.method} ${op.path}`, evidence: { ...brief(op), attempt: a } });
      if (!a.envelope) violations.push({ message: `503 not in the error envelope on ${op.method} ${op.path}`, evidence: { ...brief(op), attempt: a } });
    }
  }
  return { violations, checked };
};

export const noHang: Check = (run) => {
  const violations: Violation[] = [];
  let checked = 0;
  for (const op of run.ops) {
    checked++;
    for (const a of op.attempts) {
      if (a.failure === 'timeout' && !a.targetDied) violations.push({ message: `${op.method} ${op.path} got no answer in ${a.ms} ms from ${a.target}, which stayed up`, evidence: { ...brief(op), attempt: a } });
    }
    if (!op.settled) violations.push({ message: `${op.method} ${op.path} never got an answer to act on (${op.attempts.length} attempts over ${op.endedAt - op.startedAt} ms)`, evidence: { ...brief(op), attempts: op.attempts.slice(-5) } });
  }
  return { violations, checked };
};

// ------------------------------------------------------------------------------ durability

/** Every state reachable from `from` through a lifecycle table (the state itself included). */
function reachable(machine: { actions: Readonly<Record<string, { from: readonly string[]; to?: string }>> }, from: string): Set<string> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length) {
    const state = queue.shift()!;
    for (const rule of Object.values(machine.actions)) {
      if (rule.to && rule.from.includes(state) && !seen.has(rule.to)) {
        seen.add(rule.to);
        queue.push(rule.to);
      }
    }
  }
  return seen;
}
const machines = { booking: bookingMachine, payment: paymentMachine, deposit: depositMachine, charge: chargeMachine } as const;

export const durable2xx: Check = (run) => {
  const violations: Violation[] = [];
  let checked = 0;
  for (const op of run.ops) {
    if (!op.settled || !ok2xx(op.final?.status) || !op.effect) continue;
    checked++;
    const { object, id, state } = op.effect;
    const now = run.api.states[object]?.[id];
    if (now === undefined || now === null) {
      violations.push({ message: `${op.name} answered ${op.final!.status} for ${object} ${id}, which the API does not find`, evidence: brief(op) });
      continue;
    }
    if (state === null || object === 'vehicle') continue;
    if (!reachable(machines[object], state).has(now)) {
      violations.push({ message: `${op.name} answered ${object} ${id} '${state}', now '${now}', which the ${object} table cannot reach from '${state}': the acknowledged change was lost`, evidence: brief(op) });
    }
  }
  return { violations, checked };
};

// ------------------------------------------------------------------------------ idempotency

export const oneEffectPerKey: Check = (run) => {
  const violations: Violation[] = [];
  const keyed = run.ops.filter((op) => op.key !== null);
  const eventsByKey = new Map<string, EventRow[]>();
  for (const e of run.db.events) if (e.idempotencyKey) eventsByKey.set(e.idempotencyKey, [...(eventsByKey.get(e.idempotencyKey) ?? []), e]);
  const rowsByKey = new Map<string, { kind: string; id: string }[]>();
  for (const [kind, rows] of [['vehicle', run.db.vehicles], ['booking', run.db.keyedBookings], ['charge', run.db.charges]] as const) {
    for (const r of rows) rowsByKey.set(r.chaosKey, [...(rowsByKey.get(r.chaosKey) ?? []), { kind, id: r.id }]);
  }
  const replays = new Map(run.api.replays.map((r) => [r.opId, r]));

  for (const op of keyed) {
    const key = op.key!;
    const events = eventsByKey.get(key) ?? [];
    const rows = rowsByKey.get(key) ?? [];
    // One run of the operation: its events all come from one request (a change the service
    // makes by itself, such as a sweeper finishing the operation, has no request).
    const requests = [...new Set(events.filter((e) => e.requestId !== null).map((e) => e.requestId))];
    if (requests.length > 1) {
      violations.push({ message: `key ${key} (${op.name}) ran ${requests.length} times: its events come from requests ${requests.join(', ')}`, evidence: { ...brief(op), events: events.map((e) => `${e.type} ${e.id} ${e.requestId}`) } });
    }
    // One object made under a key.
    if (rows.length > 1) violations.push({ message: `key ${key} (${op.name}) made ${rows.length} objects: ${rows.map((r) => `${r.kind} ${r.id}`).join(', ')}`, evidence: brief(op) });
    // The answer agrees with the effect: a key whose operation took effect was answered its success.
    const tookEffect = events.length > 0 || rows.length > 0;
    const status = op.final?.status;
    const normal = ok2xx(status) || (status !== undefined && (op.normal ?? []).includes(status));
    if (op.settled && tookEffect && !normal) {
      violations.push({
        message: `key ${key} (${op.name}) took effect (${events.map((e) => e.type).join(', ') || rows.map((r) => r.kind).join(', ')}) but the client was answered ${status} ${op.final?.body?.error?.code ?? ''}`,
        evidence: { ...brief(op), message: op.final?.body?.error?.message, attempts: op.attempts.map((a) => `${a.target} ${a.status ?? a.failure}${a.code ? ` ${a.code}` : ''}${a.replayed ? ' (replayed)' : ''}`) },
      });
    }
    // The key remembers the answer: the same request again replays it.
    const probe = replays.get(op.id);
    if (probe && op.final) {
      const same = probe.status === op.final.status && JSON.stringify(probe.body) === JSON.stringify(op.final.body);
      if (!same || !probe.replayed) {
        violations.push({ message: `key ${key} (${op.name}): sent again, it answered ${probe.status}${probe.replayed ? ' (replayed)' : ' (not a replay)'} instead of replaying ${op.final.status}`, evidence: { ...brief(op), probe } });
      }
    }
  }
  return { violations, checked: keyed.length };
};

// ------------------------------------------------------------------------------ bookings

const RELEASED = new Set(['canceled', 'refunded']);

export const noOverlap: Check = (run) => {
  const violations: Violation[] = [];
  const byVehicle = new Map<string, BookingRow[]>();
  for (const b of run.db.bookings) if (!RELEASED.has(b.state)) byVehicle.set(b.vehicleId, [...(byVehicle.get(b.vehicleId) ?? []), b]);
  for (const [vehicleId, bookings] of byVehicle) {
    // Half-open periods, as the database's constraint: [start, end). Sorted by start, a booking
    // overlaps an earlier one exactly when it starts before the latest end so far.
    const sorted = [...bookings].sort((a, b) => a.startAt - b.startAt);
    let latest = sorted[0];
    for (const b of sorted.slice(1)) {
      if (b.startAt < latest.endAt) violations.push({ message: `vehicle ${vehicleId}: bookings ${latest.id} (${latest.state}) and ${b.id} (${b.state}) overlap`, evidence: { a: latest, b } });
      if (b.endAt > latest.endAt) latest = b;
    }
  }
  return { violations, checked: run.db.bookings.length };
};

// ------------------------------------------------------------------------------ money

export function booksProblems(books: Books): string[] {
  const problems: string[] = [];
  const { booking, payment, deposit, charges, transactions } = books;
  const succeeded = (type: string, chargeId?: string | null) => transactions.filter((t) => t.type === type && t.status === 'succeeded' && (chargeId === undefined || t.charge_id === chargeId));
  const sum = (rows: { amount_cents: number }[]) => rows.reduce((s, t) => s + t.amount_cents, 0);

  for (const t of transactions) if (t.status === 'pending') problems.push(`${t.type} transaction ${t.id} of ${t.amount_cents} is still pending`);

  const paymentTx = succeeded('payment');
  if (payment) {
    const collected = ['succeeded', 'partially_refunded', 'refunded'].includes(payment.state);
    if (collected && (paymentTx.length !== 1 || paymentTx[0].amount_cents !== payment.amount_cents)) problems.push(`payment ${payment.state} for ${payment.amount_cents} but its succeeded payment transactions are [${paymentTx.map((t) => t.amount_cents).join(', ')}]`);
    if (!collected && paymentTx.length > 0) problems.push(`payment ${payment.state} but ${paymentTx.length} payment transaction(s) succeeded`);
    // The payment's refunds: those of a charge (charge_id) or of an extension (refunded_transaction_id) are not.
    const refunds = sum(succeeded('refund', null).filter((t) => !t.refunded_transaction_id));
    if (payment.amount_refunded_cents !== refunds) problems.push(`payment refunded ${payment.amount_refunded_cents} but its succeeded refunds add up to ${refunds}`);
    if (payment.amount_refunded_cents > payment.amount_cents) problems.push(`payment refunded ${payment.amount_refunded_cents}, more than its ${payment.amount_cents}`);
    if (payment.state === 'refunded' && payment.amount_refunded_cents !== payment.amount_cents) problems.push(`payment refunded but only ${payment.amount_refunded_cents} of ${payment.amount_cents} went back`);
    const extensions = sum(succeeded('extension'));
    for (const extension of succeeded('extension')) {
      if (sum(succeeded('refund').filter((t) => t.refunded_transaction_id === extension.id)) > extension.amount_cents) problems.push(`extension ${extension.id} refunded more than it charged`);
    }
    if (booking.total_cents !== payment.amount_cents + extensions) problems.push(`booking total ${booking.total_cents} is not its payment ${payment.amount_cents} plus extensions ${extensions}`);
  } else if (paymentTx.length > 0) problems.push('payment transactions without a payment');

  if (deposit) {
    const captures = sum(succeeded('deposit_capture'));
    const releases = sum(succeeded('deposit_release'));
    const holds = succeeded('deposit_hold');
    if (deposit.captured_cents !== captures) problems.push(`deposit captured ${deposit.captured_cents} but its succeeded captures add up to ${captures}`);
    if (deposit.captured_cents > deposit.amount_cents) problems.push(`deposit captured ${deposit.captured_cents}, more than its ${deposit.amount_cents}`);
    if (deposit.state === 'partially_captured' && deposit.captured_cents + releases !== deposit.amount_cents) problems.push(`deposit partially captured: ${deposit.captured_cents} captured + ${releases} released is not its ${deposit.amount_cents}`);
    if (deposit.state === 'released' && releases !== deposit.amount_cents) problems.push(`deposit released but its releases add up to ${releases} of ${deposit.amount_cents}`);
    const held = ['secured', 'captured', 'partially_captured', 'released'].includes(deposit.state);
    if (held && (holds.length !== 1 || holds[0].amount_cents !== deposit.amount_cents)) problems.push(`deposit ${deposit.state} but its succeeded holds are [${holds.map((t) => t.amount_cents).join(', ')}]`);
  }

  for (const charge of charges) {
    const collections = [...succeeded('charge', charge.id), ...succeeded('deposit_capture', charge.id)];
    if (charge.state === 'processing') problems.push(`charge ${charge.id} is still processing: its collection was never finished`);
    if (charge.state === 'succeeded' && (collections.length !== 1 || collections[0].amount_cents !== charge.amount_cents)) problems.push(`charge ${charge.id} succeeded for ${charge.amount_cents} but was collected [${collections.map((t) => t.amount_cents).join(', ')}]`);
    if ((charge.state === 'pending' || charge.state === 'failed') && collections.length > 0) problems.push(`charge ${charge.id} ${charge.state} but collected ${collections.length} time(s)`);
    if (sum(succeeded('refund', charge.id)) > sum(collections)) problems.push(`charge ${charge.id} refunded more than was collected`);
  }
  return problems;
}

export const transactionsReconcile: Check = (run) => {
  const violations: Violation[] = [];
  for (const books of run.api.books) {
    const problems = booksProblems(books);
    if (problems.length) violations.push({ message: `booking ${books.booking.id} (${books.booking.state}): ${problems.join('; ')}`, evidence: books });
  }
  return { violations, checked: run.api.books.length };
};

// ------------------------------------------------------------------------------ webhooks

export interface DeliveryStats {
  events: number;
  delivered: number;
  deliveries: number;
  /** Deliveries of an event beyond its first verified one (retries after a 500 included). */
  duplicates: number;
  /** Of those, the ones after the receiver had answered 2xx: the at-least-once repeats. */
  duplicatesAfterSuccess: number;
  invalid: number;
}

export function deliveryStats(run: RunData): DeliveryStats {
  const valid = run.deliveries.filter((d) => d.valid);
  const byId = new Map<string, Delivery[]>();
  for (const d of valid) byId.set(d.webhookId, [...(byId.get(d.webhookId) ?? []), d]);
  let duplicates = 0;
  let duplicatesAfterSuccess = 0;
  for (const list of byId.values()) {
    duplicates += list.length - 1;
    const firstSuccess = list.findIndex((d) => d.answered < 300);
    if (firstSuccess >= 0) duplicatesAfterSuccess += list.length - 1 - firstSuccess;
  }
  const eventIds = new Set(run.db.events.map((e) => e.id));
  return { events: eventIds.size, delivered: [...eventIds].filter((id) => byId.get(id)?.some((d) => d.answered < 300)).length, deliveries: run.deliveries.length, duplicates, duplicatesAfterSuccess, invalid: run.deliveries.length - valid.length };
}

export const webhooksDelivered: Check = (run) => {
  const violations: Violation[] = [];
  const accepted = new Set(run.deliveries.filter((d) => d.valid && d.answered < 300).map((d) => d.webhookId));
  const known = new Set(run.db.events.map((e) => e.id));
  for (const e of run.db.events) {
    if (!accepted.has(e.id)) violations.push({ message: `event ${e.id} (${e.type}) was never delivered with a valid signature`, evidence: { event: e, attempts: run.deliveries.filter((d) => d.webhookId === e.id) } });
  }
  for (const d of run.deliveries) {
    if (!d.valid) violations.push({ message: `delivery ${d.webhookId || '(no webhook-id)'} failed verification: ${d.problem}`, evidence: d });
    else if (!known.has(d.webhookId)) violations.push({ message: `delivery of ${d.webhookId} (${d.type}), an event the database does not have`, evidence: d });
  }
  return { violations, checked: run.db.events.length };
};

// ------------------------------------------------------------------------------ processes

export const restartsWithinLimit: Check = (run) => {
  const violations: Violation[] = [];
  let checked = 0;
  for (const p of run.processes) {
    for (const r of p.restarts) {
      checked++;
      if (r.readyMs > READY_LIMIT_MS) violations.push({ message: `${p.name} served again ${r.readyMs} ms after its restart (limit ${READY_LIMIT_MS})`, evidence: r });
    }
  }
  return { violations, checked };
};

export const poolsRecover: Check = (run) => {
  const violations: Violation[] = [];
  let checked = 0;
  for (const f of run.faults) {
    if (f.kind !== 'restart_postgres' || !f.poolRecoveryMs) continue;
    for (const [name, ms] of Object.entries(f.poolRecoveryMs)) {
      if (ms === 'restarted') continue;
      checked++;
      if (ms === 'never' || ms > READY_LIMIT_MS) violations.push({ message: `${name} served a database read again ${ms === 'never' ? 'never (30 s)' : `${ms} ms`} after PostgreSQL came back, without a restart (limit ${READY_LIMIT_MS})`, evidence: f });
    }
  }
  return { violations, checked };
};

export const noUnexpectedExit: Check = (run) => {
  const violations: Violation[] = [];
  for (const p of run.processes) for (const e of p.unexpectedExits) violations.push({ message: `${p.name} exited by itself (${e.code ?? e.signal})`, evidence: e });
  return { violations, checked: run.processes.length };
};

export const faultsCarriedOut: Check = (run) => {
  const violations = run.faults.filter((f) => f.error).map((f) => ({ message: `fault ${f.kind} ${f.process ?? ''} at ${Math.round(f.startedAt)} ms failed: ${f.error}`, evidence: f }));
  return { violations, checked: run.faults.length };
};

export const INVARIANTS: { name: string; description: string; check: Check }[] = [
  { name: 'no_500', description: 'no answer is a 5xx other than 503', check: no500 },
  { name: 'unavailable_is_503_with_retry_after', description: 'every 503 has Retry-After and the error envelope', check: unavailableAnswers },
  { name: 'no_hang', description: 'a live process answers within the timeout; every call gets an answer', check: noHang },
  { name: 'durable_2xx', description: 'every 2xx answer is durable: its object exists in that state or a later one', check: durable2xx },
  { name: 'one_effect_per_key', description: 'each Idempotency-Key ran once, made one object, was answered as its effect says, and replays its answer', check: oneEffectPerKey },
  { name: 'no_overlap', description: 'no two blocking bookings of a vehicle overlap', check: noOverlap },
  { name: 'transactions_reconcile', description: 'GET .../transactions reconciles with the payment, refunds, deposit and charges; nothing left pending', check: transactionsReconcile },
  { name: 'webhooks_delivered', description: 'every event delivered at least once with a valid signature; nothing else delivered', check: webhooksDelivered },
  { name: 'restart_within_10s', description: 'each restarted process serves again within 10 s', check: restartsWithinLimit },
  { name: 'pool_recovers', description: 'after a PostgreSQL restart each API process serves again within 10 s, without a restart', check: poolsRecover },
  { name: 'no_unexpected_exit', description: 'no process exits unless the harness killed it', check: noUnexpectedExit },
  { name: 'faults_carried_out', description: 'every planned fault was carried out', check: faultsCarriedOut },
];

export function checkInvariants(run: RunData): InvariantResult[] {
  return INVARIANTS.map(({ name, description, check }) => ({ name, description, ...check(run) }));
}
