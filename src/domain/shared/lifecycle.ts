import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import { CommonErrors } from './common.errors.ts';
import type { Db } from './context.ts';
import type { ActionSpec } from './state-machine.ts';

/** What a lifecycle needs of its table (any Machine of the engine). */
interface RecordMachine<S extends string, F, A extends string> {
  readonly object: string;
  readonly initial: readonly S[];
  check(facts: F, action: A): Pick<ActionSpec<S, string, F>, 'to' | 'set' | 'event'>;
}

/** What every record with a lifecycle has. */
export interface LifecycleRow {
  id: string;
  state: string;
  updatedAt: Date;
}

/** The Prisma delegate calls a lifecycle write needs (every model's delegate has them). */
interface RecordDelegate<Row> {
  updateMany(args: { where: Record<string, unknown>; data: Record<string, unknown> }): Promise<{ count: number }>;
  findUnique(args: { where: { id: string }; select?: { state: true } }): Promise<Row | { state: string } | null>;
  findUniqueOrThrow(args: { where: { id: string } }): Promise<Row>;
  create(args: { data: Record<string, unknown> }): Promise<Row>;
}

/**
 * How one aggregate's records live: its table, where its rows are, what its guards read of a
 * row, and how the row appears in the events of its actions.
 */
export interface Lifecycle<Row extends LifecycleRow, F extends { state: Row['state'] }, A extends string> {
  machine: RecordMachine<Row['state'], F, A>;
  records(db: Db): unknown;
  facts(row: Row): F;
  present(row: Row): Record<string, unknown>;
  /** The booking an event of the record belongs to (for the timeline and booking streams). */
  bookingId(row: Row): string | null;
  /** Adjust what an action writes (a booking keeps a waived gate waived). */
  prepare?(row: Row, changes: Record<string, unknown>): Record<string, unknown>;
}

function delegate<Row extends LifecycleRow>(lifecycle: Lifecycle<Row, never, string>, db: Db): RecordDelegate<Row> {
  return lifecycle.records(db) as RecordDelegate<Row>;
}

/**
 * Run one action of the record's table inside `tx`: check it against the row as read, write
 * the new state (and what the action sets, and `changes`) only if nobody changed the row
 * since (compare-and-set on state and updatedAt), and record the action's event in the same
 * transaction. A lost race is 409 `invalid_state_transition` naming the state now.
 */
export async function runAction<Row extends LifecycleRow, F extends { state: Row['state'] }, A extends string>(
  tx: Db,
  origin: EventOrigin,
  lifecycle: Lifecycle<Row, F, A>,
  row: Row,
  action: A,
  changes: Record<string, unknown> = {},
): Promise<Row> {
  const rule = lifecycle.machine.check(lifecycle.facts(row), action);
  let data: Record<string, unknown> = { ...(rule.set ?? {}), ...changes, ...(rule.to !== undefined ? { state: rule.to } : {}) };
  if (lifecycle.prepare) data = lifecycle.prepare(row, data);
  const records = delegate(lifecycle as unknown as Lifecycle<Row, never, string>, tx);
  let updated = row;
  if (Object.keys(data).length > 0) {
    const { count } = await records.updateMany({ where: { id: row.id, state: row.state, updatedAt: row.updatedAt }, data });
    if (count !== 1) {
      const current = (await records.findUnique({ where: { id: row.id }, select: { state: true } })) as { state: string } | null;
      const now = current?.state ?? 'unknown';
      throw CommonErrors.invalidStateTransition(lifecycle.machine.object, now, `The ${lifecycle.machine.object} changed while this request ran; it is now '${now}'. Retry with its current state.`);
    }
    updated = await records.findUniqueOrThrow({ where: { id: row.id } });
  }
  if (rule.event) await recordEvent(tx, origin, { type: rule.event, bookingId: lifecycle.bookingId(updated), object: lifecycle.present(updated) });
  return updated;
}

/**
 * Create a record by an action of its table from a creation state (an identity verification
 * that arrives already verified): the table decides the state it is born in, and the action's
 * event is recorded with it.
 */
export async function createByAction<Row extends LifecycleRow, F extends { state: Row['state'] }, A extends string>(
  tx: Db,
  origin: EventOrigin,
  lifecycle: Lifecycle<Row, F, A>,
  born: { from: Row['state']; facts?: Omit<F, 'state'> },
  action: A,
  data: Record<string, unknown>,
): Promise<Row> {
  if (!lifecycle.machine.initial.includes(born.from)) throw new Error(`${lifecycle.machine.object}: ${born.from} is not a creation state`);
  const rule = lifecycle.machine.check({ ...(born.facts ?? {}), state: born.from } as F, action);
  const created = await delegate(lifecycle as unknown as Lifecycle<Row, never, string>, tx).create({
    data: { ...(rule.set ?? {}), ...data, state: rule.to ?? born.from },
  });
  if (rule.event) await recordEvent(tx, origin, { type: rule.event, bookingId: lifecycle.bookingId(created), object: lifecycle.present(created) });
  return created;
}

/**
 * The lifecycle of a record that belongs to one booking and whose guards read only the row
 * itself (payment, identity verification, agreement, insurance).
 */
export function bookingRecordLifecycle<Row extends LifecycleRow & { bookingId: string }, A extends string>(
  machine: Lifecycle<Row, Row, A>['machine'],
  records: (db: Db) => unknown,
  present: (row: Row) => Record<string, unknown>,
): Lifecycle<Row, Row, A> {
  return { machine, records, present, facts: (row) => row, bookingId: (row) => row.bookingId };
}
