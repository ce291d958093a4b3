import { authorizeSandbox } from '../access/permissions.ts';
import type { DomainContext } from '../shared/context.ts';

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
 * POST /v1/test/reset: delete the caller's sandbox data so a scenario can be repeated
 * (CONTRACT.md "Sandbox"). Only rows of this business with livemode = false go; API keys,
 * team and webhook endpoints stay. Children go before their parents, in one transaction.
 * Idempotency records of requests still running (this one included) are kept, so that
 * they can still store their answer.
 */
export async function resetSandbox(ctx: DomainContext): Promise<SandboxReset> {
  authorizeSandbox(ctx.principal, 'business:write');
  const where = { businessId: ctx.principal.businessId, livemode: false };
  const deleted = await ctx.prisma.$transaction(async (tx) => {
    const steps: Record<ResetTable, () => Promise<{ count: number }>> = {
      webhookDeliveries: () => tx.webhookDelivery.deleteMany({ where }),
      webhookMessages: () => tx.webhookMessage.deleteMany({ where }),
      events: () => tx.event.deleteMany({ where }),
      disputes: () => tx.dispute.deleteMany({ where }),
      transactions: () => tx.transaction.deleteMany({ where }),
      charges: () => tx.charge.deleteMany({ where }),
      payments: () => tx.payment.deleteMany({ where }),
      deposits: () => tx.deposit.deleteMany({ where }),
      identityVerifications: () => tx.identityVerification.deleteMany({ where }),
      agreements: () => tx.agreement.deleteMany({ where }),
      insurance: () => tx.insurance.deleteMany({ where }),
      messages: () => tx.message.deleteMany({ where }),
      conversations: () => tx.conversation.deleteMany({ where }),
      bookings: () => tx.booking.deleteMany({ where }),
      quotes: () => tx.quote.deleteMany({ where }),
      customers: () => tx.customer.deleteMany({ where }),
      vehicles: () => tx.vehicle.deleteMany({ where }),
      auditLogs: () => tx.auditLog.deleteMany({ where }),
      idempotencyRecords: () => tx.idempotencyRecord.deleteMany({ where: { ...where, state: 'completed' } }),
    };
    const counts = {} as Record<ResetTable, number>;
    for (const table of RESET_TABLES) counts[table] = (await steps[table]()).count;
    return counts;
  });
  return { object: 'sandbox_reset', livemode: false, deleted };
}
