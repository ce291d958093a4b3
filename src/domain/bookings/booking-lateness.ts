import type { Prisma } from '../../generated/prisma/client.ts';
import type { TenantDb, TenantScope } from '../../db/tenant-db.ts';
import { settingsOf } from '../business/business-settings.ts';
import { bookingStep } from './booking-lifecycle.ts';

/** Rentals still out after their end (before any business's grace): where the sweeper looks. */
export const overdueRentals = (now: Date): Prisma.BookingWhereInput => ({ state: 'active', endAt: { lt: now } });

/**
 * Move one tenant's rentals still out after `end_at` plus the business's
 * `return_rules.grace_minutes` to late (`rental.late`), through the booking's table. Each
 * move is a compare-and-set, so whichever process sweeps, a rental goes late once. Returns how
 * many went late.
 */
export async function markLateRentals(db: TenantDb, tenant: TenantScope, now: Date, batch = 100): Promise<number> {
  const graceMs = (await settingsOf(db, tenant.businessId, tenant.livemode)).return_rules.grace_minutes * 60_000;
  const due = await db.booking.findMany({ where: overdueRentals(new Date(now.getTime() - graceMs)), orderBy: { endAt: 'asc' }, take: batch });
  let late = 0;
  for (const booking of due) {
    try {
      // The platform's own step: no request caused it.
      const origin = { businessId: booking.businessId, livemode: booking.livemode, requestId: null, idempotencyKey: null };
      await db.$transaction((tx) => bookingStep(tx, origin, booking, 'make_late'));
      late++;
    } catch {
      // Another process (or the return) moved it first: nothing to do.
    }
  }
  return late;
}
