import { AsyncLocalStorage } from 'node:async_hooks';

const NONE: ReadonlySet<string> = new Set();

/** What an operation touched, for its audit record: the objects, and the booking they belong to. */
export class AuditTrail {
  /** The GraphQL field or REST operation; set for writes. */
  operation: string | null = null;
  /** A write (REST POST/DELETE, a GraphQL mutation). */
  write = false;
  bookingId: string | null = null;
  // Made at the first row touched: a read touches none (every request has a trail).
  private touched: Set<string> | null = null;

  /** The ids of the rows the operation read or wrote by itself, in that order. */
  get objects(): ReadonlySet<string> {
    return this.touched ?? NONE;
  }

  /** A row the operation read or wrote by itself (the tenant scope reports them). */
  touch(model: string, row: { id?: unknown; bookingId?: unknown }): void {
    if (typeof row.id === 'string') (this.touched ??= new Set()).add(row.id);
    const booking = model === 'Booking' ? row.id : row.bookingId;
    if (this.bookingId === null && typeof booking === 'string') this.bookingId = booking;
  }
}

/** What the edge knows about the request in flight, for code far from the handler (error masking, the tenant scope). */
export interface RequestScope {
  requestId: string;
  audit: AuditTrail;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

export function currentRequestId(): string {
  return requestScope.getStore()?.requestId ?? 'req_unknown';
}
