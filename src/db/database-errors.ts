// What database errors mean, read the same way from PGlite and PostgreSQL (no driver imports:
// domain code may use these).
// Through Prisma both adapters surface a database error the same way (verified on PGlite
// and PostgreSQL): a PrismaClientKnownRequestError (P2039 from model queries, P2010 from
// raw ones, P2002 for unique violations) whose meta.driverAdapterError is a
// DriverAdapterError with cause { originalCode: '23P01', originalMessage: 'conflicting key
// value violates exclusion constraint "Booking_no_overlap"', kind, code, detail }.

/** True for a violation of the booking overlap rule ("Booking_no_overlap", SQLSTATE 23P01). */
export function isExclusionViolation(err: unknown): boolean {
  const db = databaseError(err);
  // The name guards against exclusion constraints added later for other rules.
  return db?.code === '23P01' && (db.message === undefined || db.message.includes('Booking_no_overlap'));
}

/** True when a booking was refused by the "Booking_vehicle_active" trigger: its vehicle is no longer active. */
export function isInactiveVehicleViolation(err: unknown): boolean {
  const db = databaseError(err);
  return db?.code === 'RV001' || (db?.message?.includes('Booking_vehicle_active') ?? false);
}

/** True for a unique constraint violation (SQLSTATE 23505, Prisma P2002). */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'P2002' || databaseError(err)?.code === '23505';
}

/**
 * True when PostgreSQL aborted a transaction in favour of a concurrent one: a serialization
 * failure (SQLSTATE 40001) or a deadlock (40P01, e.g. two overlapping bookings checking the
 * exclusion constraint against each other). Nothing of that transaction was committed, so
 * running it again is safe (the tenant scope does: src/db/transaction-retry.ts).
 */
export function isTransactionConflict(err: unknown): boolean {
  return transactionConflictKind(err) !== null;
}

export type TransactionConflictKind = 'deadlock' | 'serialization_failure';

/** Which of the two isTransactionConflict's error is (null: neither). */
export function transactionConflictKind(err: unknown): TransactionConflictKind | null {
  const code = databaseError(err)?.code;
  if (code === '40P01') return 'deadlock';
  // P2034: Prisma's own name for either ("write conflict or a deadlock"), when it names no SQLSTATE.
  return code === '40001' || (err as { code?: unknown } | null)?.code === 'P2034' ? 'serialization_failure' : null;
}

/**
 * The SQLSTATE and message of a database error: from a Prisma error, a bare
 * DriverAdapterError, or a raw pg / PGlite error (for code that bypasses Prisma).
 */
function databaseError(err: unknown): { code: string; message?: string } | undefined {
  let current = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const e = current as {
      originalCode?: unknown;
      originalMessage?: unknown;
      code?: unknown;
      severity?: unknown;
      message?: unknown;
      meta?: { driverAdapterError?: unknown };
      cause?: unknown;
    };
    const message = typeof e.originalMessage === 'string' ? e.originalMessage : typeof e.message === 'string' ? e.message : undefined;
    if (typeof e.originalCode === 'string') return { code: e.originalCode, message };
    // pg's and PGlite's DatabaseError: a five-character SQLSTATE next to a severity.
    if (typeof e.code === 'string' && typeof e.severity === 'string') return { code: e.code, message };
    current = e.meta?.driverAdapterError ?? e.cause;
  }
  return undefined;
}

