import { setTimeout as sleep } from 'node:timers/promises';
import { log } from '../log.ts';
import { transactionConflictKind, type TransactionConflictKind } from './database-errors.ts';

/**
 * How many times one transaction runs at most while PostgreSQL keeps aborting it for
 * concurrent ones. Each deadlock costs its victim the server's deadlock_timeout (1 s by
 * default) before it is detected, so four attempts bound a request's wait to a few seconds.
 */
export const TRANSACTION_ATTEMPTS = 4;

/**
 * Transactions of this process that PostgreSQL aborted for a concurrent one, by cause, since
 * it started: each was run again, or answered 503 after its last attempt (GET /metrics).
 */
export const abortedTransactions: Record<TransactionConflictKind, number> = { deadlock: 0, serialization_failure: 0 };

/**
 * Run `transaction` (a whole database transaction: begin, its callback, commit) again when
 * PostgreSQL aborted it in favour of a concurrent one, a deadlock or a serialization failure
 * (isTransactionConflict), at most `attempts` times, after a short random pause so that the
 * two that collided do not collide again in step. The last conflict is thrown as it is, for
 * the edge to answer (503 transaction_conflict with Retry-After); any other error at once.
 *
 * The callback runs again from the start, so it must change nothing outside the transaction
 * before the commit: no processor call, no file written, no message sent (those come after
 * the transaction, as every operation of the domain does them).
 */
export async function retryConflicts<T>(transaction: () => Promise<T>, attempts = TRANSACTION_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      const conflict = transactionConflictKind(err);
      if (!conflict) throw err;
      abortedTransactions[conflict]++;
      if (attempt >= attempts) throw err;
      log.warn({ attempt, reason: (err as Error).message?.trim().split('\n').at(-1) }, 'transaction aborted by a concurrent one: running it again');
      await sleep(pauseBefore(attempt + 1));
    }
  }
}

/** Up to 20, 40, 80... ms (at most 200), drawn at random ("full jitter"). */
function pauseBefore(attempt: number): number {
  return Math.random() * Math.min(200, 10 * 2 ** (attempt - 1));
}
