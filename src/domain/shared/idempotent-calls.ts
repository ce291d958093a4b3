import { Prisma } from '../../generated/prisma/client.ts';
import type { TenantDb, TenantTx } from '../../db/tenant-db.ts';

/*
 * An operation called under an Idempotency-Key (the contract's "Idempotency") runs once, even
 * when the process dies after its change committed and before its answer was stored. Every
 * transaction of the call also writes, into the key's record, which rows the call created and
 * changed: the change and the mark of it commit together or not at all. A retry that takes the
 * key over once the dead owner's lease ran out finds the mark, and answers from the rows the
 * first run left (as the first run would have answered) instead of running the rule again.
 */

/** What one operation call committed: the ids of the rows it created and changed, by model. */
export interface CallEffect {
  created: Record<string, string[]>;
  changed: Record<string, string[]>;
}

/** Everything committed under a key, by call: the n-th call of an operation in the request is `name#n`. */
export type Effects = Record<string, CallEffect>;

/** A request under an Idempotency-Key whose claim this process holds (src/http/idempotency.ts). */
export interface IdempotentRequest {
  readonly key: string;
  /** What the key's earlier owners committed (a retry that took over a dead owner's claim), by call. */
  readonly committed: Readonly<Effects>;
  /** Everything committed under the key so far, this request's calls included. */
  effects: Effects;
  /** How many calls of each operation this request made so far. */
  readonly calls: Map<string, number>;
  /** A call was answered from what an earlier owner committed (the answer is a replay of that run). */
  replayed: boolean;
  /** The refusal of a write whose claim another request took over meanwhile (this one was presumed dead). */
  claimLost(): Error;
}

export function idempotentRequest(key: string, committed: Effects | null, claimLost: () => Error): IdempotentRequest {
  const earlier = committed ?? {};
  return { key, committed: earlier, effects: { ...earlier }, calls: new Map(), replayed: false, claimLost };
}

/** The label of the next call of `operation` in the request (`createBooking#1`, then `#2`). */
export function nextCall(request: IdempotentRequest, operation: string): string {
  const n = (request.calls.get(operation) ?? 0) + 1;
  request.calls.set(operation, n);
  return `${operation}#${n}`;
}

const MODELS: ReadonlySet<string> = new Set(Object.values(Prisma.ModelName));
const modelOf = (delegate: string) => {
  const model = delegate[0].toUpperCase() + delegate.slice(1);
  return MODELS.has(model) ? model : null;
};

/** The rows one transaction wrote, as they are written. */
class Written {
  readonly created: Record<string, string[]> = {};
  readonly changed: Record<string, string[]> = {};
  get any(): boolean {
    return Object.keys(this.created).length > 0 || Object.keys(this.changed).length > 0;
  }
  note(into: Record<string, string[]>, model: string, id: unknown): void {
    if (typeof id !== 'string') return;
    const ids = (into[model] ??= []);
    if (!ids.includes(id)) ids.push(id);
  }
}

const idOf = (row: unknown) => (row && typeof row === 'object' ? (row as { id?: unknown }).id : undefined);

type Delegate = Record<string, (args?: unknown) => Promise<unknown>>;

/** A model's delegate in a transaction, noting the rows its writes create and change. */
function notingDelegate(delegate: Delegate, model: string, written: Written): Delegate {
  return new Proxy(delegate, {
    get(target, operation) {
      const run = Reflect.get(target, operation) as Delegate[string];
      if (typeof operation !== 'string' || typeof run !== 'function') return run;
      switch (operation) {
        case 'create':
          return (args?: unknown) => run.call(target, args).then((row) => (written.note(written.created, model, idOf(row)), row));
        case 'update':
        case 'upsert':
        case 'delete':
          return (args?: unknown) => run.call(target, args).then((row) => (written.note(written.changed, model, idOf(row)), row));
        case 'createMany':
          return (args?: { data?: unknown }) =>
            run.call(target, args).then((result) => {
              for (const row of [args?.data].flat()) written.note(written.created, model, idOf(row));
              if (!written.created[model]) written.created[model] = [];
              return result;
            });
        case 'createManyAndReturn':
        case 'updateManyAndReturn':
          return (args?: unknown) =>
            run.call(target, args).then((rows) => {
              const into = operation === 'createManyAndReturn' ? written.created : written.changed;
              for (const row of rows as unknown[]) written.note(into, model, idOf(row));
              return rows;
            });
        case 'updateMany':
        case 'deleteMany':
          // A compare-and-set by id names its row; a wider one is noted as a change of the model.
          return (args?: { where?: { id?: unknown } }) =>
            run.call(target, args).then((result) => {
              if ((result as { count: number }).count > 0) {
                if (typeof args?.where?.id === 'string') written.note(written.changed, model, args.where.id);
                else written.changed[model] ??= [];
              }
              return result;
            });
        default:
          return run.bind(target);
      }
    },
  });
}

/** A transaction's client that notes what it writes. */
function notingTx(tx: TenantTx, written: Written): TenantTx {
  const delegates = new Map<string, Delegate>();
  return new Proxy(tx, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof prop !== 'string') return value;
      const model = modelOf(prop);
      if (!model || model === 'IdempotencyRecord' || !value || typeof value !== 'object') return typeof value === 'function' ? value.bind(target) : value;
      let delegate = delegates.get(prop);
      if (!delegate) delegates.set(prop, (delegate = notingDelegate(value as Delegate, model, written)));
      return delegate;
    },
  });
}

function merged(effects: Effects, call: string, written: Written): Effects {
  const before = effects[call] ?? { created: {}, changed: {} };
  const join = (a: Record<string, string[]>, b: Record<string, string[]>) => {
    const out: Record<string, string[]> = { ...a };
    for (const [model, ids] of Object.entries(b)) out[model] = [...new Set([...(out[model] ?? []), ...ids])];
    return out;
  };
  return { ...effects, [call]: { created: join(before.created, written.created), changed: join(before.changed, written.changed) } };
}

const WRITES = new Set(['create', 'createMany', 'createManyAndReturn', 'update', 'updateMany', 'updateManyAndReturn', 'upsert', 'delete', 'deleteMany']);

/**
 * The database as one call of an idempotent request sees it: each of its transactions also
 * marks, in the key's record, what the call wrote (fenced on this request still holding the
 * claim: a request presumed dead whose claim was taken over commits nothing more); a write
 * outside a transaction runs in one of its own, with its mark.
 */
export function markingDb(db: TenantDb, request: IdempotentRequest, requestId: string, call: string): TenantDb {
  async function inTransaction<T>(fn: (tx: TenantTx) => Promise<T>, options?: unknown): Promise<T> {
    let effects: Effects | null = null;
    const result = await db.$transaction(async (tx: TenantTx) => {
      effects = null;
      const written = new Written();
      const value = await fn(notingTx(tx, written));
      if (written.any) {
        const next = merged(request.effects, call, written);
        const { count } = await tx.idempotencyRecord.updateMany({
          where: { key: request.key, requestId, state: 'in_flight' },
          data: { effects: next as unknown as Prisma.InputJsonValue },
        });
        if (count !== 1) throw request.claimLost();
        effects = next;
      }
      return value;
    }, options as never);
    if (effects) request.effects = effects;
    return result;
  }

  const delegates = new Map<string, Delegate>();
  return new Proxy(db, {
    get(target, prop) {
      if (prop === '$transaction') return inTransaction;
      const value = Reflect.get(target, prop);
      if (typeof prop !== 'string') return value;
      const model = modelOf(prop);
      if (!model || !value || typeof value !== 'object') return value;
      let delegate = delegates.get(prop);
      if (!delegate) {
        delegate = new Proxy(value as Delegate, {
          get(d, operation) {
            const run = Reflect.get(d, operation);
            if (typeof operation !== 'string' || !WRITES.has(operation)) return run;
            // A write of its own commits with its mark, as a transaction does.
            return (args?: unknown) => inTransaction((tx) => (tx as unknown as Record<string, Delegate>)[prop][operation](args));
          },
        });
        delegates.set(prop, delegate);
      }
      return delegate;
    },
  });
}
