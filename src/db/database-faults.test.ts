import { describe, expect, it } from 'vitest';
import { FROM_DATABASE_POOL, isDatabaseUnavailable } from './connection-errors.ts';
import { isTransactionConflict } from './database-errors.ts';

// The shapes as PostgreSQL, pg and Prisma raise them (the real ones: test/database-outage.test.ts,
// test/transaction-retry.test.ts); here, what else must not be taken for them.
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: 'connect', address: '127.0.0.1', port: 5432 });
const serverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'ERROR' });
const prismaError = (code: string, message: string, cause?: object) =>
  Object.assign(new Error(message), { code, clientVersion: '7.10.0', meta: cause ? { driverAdapterError: Object.assign(new Error('adapter'), { name: 'DriverAdapterError', cause }) } : {} });

describe('what the edge answers 503', () => {
  it('the database out of reach or its connection lost: database_unavailable', () => {
    expect(isDatabaseUnavailable(Object.assign(socketError('ECONNREFUSED'), { [FROM_DATABASE_POOL]: true }))).toBe(true);
    expect(isDatabaseUnavailable(prismaError('P1001', "Can't reach database server at 127.0.0.1:5432", { kind: 'DatabaseNotReachable' }))).toBe(true);
    expect(isDatabaseUnavailable(serverError('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(prismaError('P2028', 'Transaction API error: Unable to start a transaction in the given time.'))).toBe(true);
  });

  it('the same socket codes from anything but the database are not the database: a webhook endpoint, the file store, Redis', () => {
    expect(isDatabaseUnavailable(socketError('ECONNREFUSED'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('fetch failed', { cause: socketError('ECONNRESET') }))).toBe(false);
  });

  it('a deadlock or serialization failure is a transaction conflict, from pg or through Prisma; a refused query is neither', () => {
    expect(isTransactionConflict(serverError('40P01', 'deadlock detected'))).toBe(true);
    expect(isTransactionConflict(prismaError('P2034', 'Transaction failed due to a write conflict or a deadlock', { kind: 'TransactionWriteConflict', originalCode: '40001' }))).toBe(true);
    expect(isDatabaseUnavailable(serverError('40P01', 'deadlock detected'))).toBe(false);
    const overlap = serverError('23P01', 'conflicting key value violates exclusion constraint "Booking_no_overlap"');
    expect(isTransactionConflict(overlap) || isDatabaseUnavailable(overlap)).toBe(false);
  });
});
