import { z } from 'zod';
import { defineOperation } from '../shared/operation.ts';

/** What a reset deletes, children before parents. */
export const RESET_TABLES = [
  'webhookDeliveries', 'webhookMessages', 'events', 'disputes', 'transactions', 'charges', 'payments', 'deposits',
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
 * contract's "Sandbox"). The tenant scope confines every delete to this business's test rows;
 * API keys, team and webhook endpoints stay. Children go before their parents, in one
 * transaction. Idempotency records of requests still running (this one included) are kept,
 * so that they can still store their answer.
 */
export const resetSandbox = defineOperation({
  name: 'testReset',
  summary: "Delete the business's sandbox data",
  description: "Sandbox: deletes this business's test data (bookings, vehicles, customers, events, ...) so a scenario can be repeated; API keys, team and webhook endpoints stay.",
  access: { permission: 'business:write', sandbox: true },
  args: z.object({}),
  errors: [],
  async run(ctx): Promise<SandboxReset> {
    const deleted = await ctx.db.$transaction(async (tx) => {
      const steps: Record<ResetTable, () => Promise<{ count: number }>> = {
        webhookDeliveries: () => tx.webhookDelivery.deleteMany({}),
        webhookMessages: () => tx.webhookMessage.deleteMany({}),
        events: () => tx.event.deleteMany({}),
        disputes: () => tx.dispute.deleteMany({}),
        transactions: () => tx.transaction.deleteMany({}),
        charges: () => tx.charge.deleteMany({}),
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
      const counts = {} as Record<ResetTable, number>;
      for (const table of RESET_TABLES) counts[table] = (await steps[table]()).count;
      return counts;
    });
    return { object: 'sandbox_reset', livemode: false, deleted };
  },
});
