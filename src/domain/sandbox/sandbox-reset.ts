import { z } from 'zod';
import { storageKey } from '../files/file-links.ts';
import { defineOperation } from '../shared/operation.ts';

/** What a reset deletes, children before parents. */
export const RESET_TABLES = [
  'webhookDeliveries', 'webhookMessages', 'events', 'evidence', 'disputes', 'transactions', 'charges', 'tripPhotos', 'files', 'payments', 'deposits',
  'identityVerifications', 'agreements', 'insurance', 'messages', 'conversations', 'bookings', 'quotes', 'customers',
  'vehicles', 'auditLogs', 'idempotencyRecords',
] as const;

export type ResetTable = (typeof RESET_TABLES)[number];

export interface SandboxReset {
  object: 'sandbox_reset';
  livemode: false;
  /** Rows deleted, per kind. */
  deleted: Record<ResetTable, number>;
}

/**
 * POST /v1/test/reset: delete the caller's sandbox data so a scenario can be repeated (the
 * contract's "Sandbox"). The website and its branding go too (the next read makes them anew,
 * unpublished and empty), since they name vehicles and a logo file that the reset deletes. The tenant scope confines every delete to this business's test rows;
 * API keys, team and webhook endpoints stay. Children go before their parents, in one
 * transaction. Idempotency records of requests still running (this one included) are kept,
 * so that they can still store their answer.
 */
export const resetSandbox = defineOperation({
  name: 'testReset',
  summary: "Delete the business's sandbox data",
  description: "Sandbox: deletes this business's test data (bookings, vehicles, customers, files, events, the website and its branding, ...) and sets the sandbox clock back to real time, so a scenario can be repeated; API keys, team and webhook endpoints stay.",
  access: { permission: 'business:write', sandbox: true },
  args: z.object({}),
  errors: [],
  async run(ctx): Promise<SandboxReset> {
    const { deleted, stored } = await ctx.db.$transaction(async (tx) => {
      const stored = await tx.file.findMany({ where: { sha256: { not: null } }, select: { id: true, businessId: true, livemode: true, sha256: true } });
      const steps: Record<ResetTable, () => Promise<{ count: number }>> = {
        webhookDeliveries: () => tx.webhookDelivery.deleteMany({}),
        webhookMessages: () => tx.webhookMessage.deleteMany({}),
        events: () => tx.event.deleteMany({}),
        evidence: () => tx.evidence.deleteMany({}),
        disputes: () => tx.dispute.deleteMany({}),
        transactions: () => tx.transaction.deleteMany({}),
        charges: () => tx.charge.deleteMany({}),
        tripPhotos: () => tx.tripPhoto.deleteMany({}),
        files: () => tx.file.deleteMany({}),
        payments: () => tx.payment.deleteMany({}),
        deposits: () => tx.deposit.deleteMany({}),
        identityVerifications: () => tx.identityVerification.deleteMany({}),
        agreements: () => tx.agreement.deleteMany({}),
        insurance: () => tx.insurance.deleteMany({}),
        messages: () => tx.message.deleteMany({}),
        conversations: () => tx.conversation.deleteMany({}),
        bookings: () => tx.booking.deleteMany({}),
        quotes: () => tx.quote.deleteMany({}),
        customers: () => tx.customer.deleteMany({}),
        vehicles: () => tx.vehicle.deleteMany({}),
        auditLogs: () => tx.auditLog.deleteMany({}),
        idempotencyRecords: () => tx.idempotencyRecord.deleteMany({ where: { state: 'completed' } }),
      };
      // Calls on record for the money sweep go with what they would settle (not a kind of the answer: nobody sees them).
      await tx.processorCall.deleteMany({});
      const counts = {} as Record<ResetTable, number>;
      for (const table of RESET_TABLES) counts[table] = (await steps[table]()).count;
      // Not counted in the answer: `deleted` is part of the published contract, and the rows come back at the next read.
      await tx.website.deleteMany({});
      await tx.branding.deleteMany({});
      // The sandbox's clock goes back to real time.
      await tx.business.update({ where: { id: ctx.tenant.businessId }, data: { sandboxClockOffsetSeconds: 0 } });
      return { deleted: counts, stored };
    });
    ctx.onClockChanged();
    // The files' bytes go once their rows are gone (a failure here leaves bytes no row names, never the reverse).
    for (const file of stored) await ctx.files.storage.remove(storageKey(file));
    return { object: 'sandbox_reset', livemode: false, deleted };
  },
});
