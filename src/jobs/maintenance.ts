import type { PrismaClient } from '../generated/prisma/client.ts';
import type { TenantDbFactory } from '../db/tenant-db.ts';
import { expireHolds, lapsedHolds } from '../domain/bookings/booking-holds.ts';
import { markLateRentals, overdueRentals } from '../domain/bookings/booking-lateness.ts';
import { sweepIdempotencyRecords } from '../http/idempotency.ts';
import { deliverDueMessages, dueMessages } from '../domain/messages/deliver-message.ts';
import type { MessageChannels } from '../domain/messages/message-channels.ts';
import type { PaymentProcessor } from '../domain/payments/processor.ts';
import { lostCalls, sweepProcessorCalls } from '../domain/payments/sweep-processor-calls.ts';
import { log } from '../log.ts';
import { newRetentionCursor, sweepRetention } from './retention.ts';
import { sweepExpiredOAuthRows } from '../oauth/adapter.ts';
import type { RetentionPolicy } from './retention-policy.ts';

export interface MoneySweepDeps {
  prisma: PrismaClient;
  tenantDb: TenantDbFactory;
  /** The tenants' clock (tests move it); a call's age is measured in real time all the same. */
  now: () => Date;
  /** The processor of each environment, as the requests use them. */
  processors: { test: PaymentProcessor; live: PaymentProcessor };
  /** How old a processor call must be before the sweep takes its request for dead (PROCESSOR_SWEEP_AFTER_MS). */
  processorSweepAfterMs: number;
}

/**
 * The money sweep over every business: which tenants have processor calls left unsettled
 * longer than a live request takes (the one question asked across businesses), then each
 * tenant's, in its scope, on its clock (src/domain/payments/sweep-processor-calls.ts).
 * `realNow` is the moment the calls' ages are measured from.
 */
export async function sweepLostProcessorCalls(deps: MoneySweepDeps, realNow = new Date()) {
  const tenants = await deps.prisma.processorCall.findMany({ where: lostCalls(realNow, deps.processorSweepAfterMs), distinct: ['businessId', 'livemode'], select: { businessId: true, livemode: true }, take: 100 });
  const swept = [];
  for (const tenant of tenants) {
    const db = deps.tenantDb(tenant);
    const business = tenant.livemode ? null : await db.business.findUnique({ where: { id: tenant.businessId }, select: { sandboxClockOffsetSeconds: true } });
    const offsetMs = (business?.sandboxClockOffsetSeconds ?? 0) * 1000;
    const money = { db, tenant, processor: deps.processors[tenant.livemode ? 'live' : 'test'], now: () => new Date(deps.now().getTime() + offsetMs) };
    for (const call of await sweepProcessorCalls(money, realNow, deps.processorSweepAfterMs)) {
      if (call.outcome === 'failed') log.warn({ job: 'money sweep', call: call.idempotencyKey, kind: call.kind, err: call.error }, 'money sweep: a processor call stays unsettled');
      else if (call.outcome === 'settled') log.info({ job: 'money sweep', call: call.idempotencyKey, kind: call.kind }, 'money sweep: settled a processor call its request left');
      swept.push({ ...tenant, ...call });
    }
  }
  return swept;
}

/**
 * The platform's own periodic work, for every business: bookings whose payment hold ran out
 * are canceled, rentals out past their end and grace go late (each through its tenant's
 * scope, like any request), processor calls whose request died before settling them are
 * settled from the processor's state (the money sweep), and idempotency keys past their 24
 * hours are deleted. Any number of processes may run it side by side.
 */
export function startMaintenance(deps: MoneySweepDeps & {
  /** The message channels of each environment (null: this process delivers no messages). */
  messaging: { test: MessageChannels; live: MessageChannels } | null;
  holdSweepMs: number;
  idempotencySweepMs: number;
  /** What is kept how long (src/jobs/retention.ts); absent: nothing is deleted. */
  retention?: RetentionPolicy;
}) {
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  const every = (ms: number, name: string, job: () => Promise<unknown>) => {
    if (ms <= 0) return;
    let running = false;
    const timer = setInterval(() => {
      if (running || stopped) return;
      running = true;
      job()
        .catch((err) => !stopped && log.error({ job: name, err: (err as Error).message }, `${name} failed`))
        .finally(() => (running = false));
    }, ms);
    timer.unref();
    timers.push(timer);
  };

  every(deps.holdSweepMs, 'hold sweep', async () => {
    const now = deps.now();
    // Which tenants have lapsed holds: the one question asked across businesses.
    const tenants = await deps.prisma.booking.findMany({ where: lapsedHolds(now), distinct: ['businessId', 'livemode'], select: { businessId: true, livemode: true }, take: 100 });
    for (const tenant of tenants) await expireHolds(deps.tenantDb(tenant), now);
  });
  every(deps.holdSweepMs, 'late sweep', async () => {
    const now = deps.now();
    // Which tenants have rentals out past their end: the business's grace is applied per tenant.
    const tenants = await deps.prisma.booking.findMany({ where: overdueRentals(now), distinct: ['businessId', 'livemode'], select: { businessId: true, livemode: true }, take: 100 });
    for (const tenant of tenants) await markLateRentals(deps.tenantDb(tenant), tenant, now);
  });
  every(deps.holdSweepMs, 'sandbox clock sweep', async () => {
    // Sandboxes whose clock runs ahead: their holds and rentals fall due in their own time.
    const ahead = await deps.prisma.business.findMany({ where: { sandboxClockOffsetSeconds: { not: 0 } }, select: { id: true, sandboxClockOffsetSeconds: true }, take: 100 });
    for (const business of ahead) {
      const now = new Date(deps.now().getTime() + business.sandboxClockOffsetSeconds * 1000);
      const db = deps.tenantDb({ businessId: business.id, livemode: false });
      await expireHolds(db, now);
      await markLateRentals(db, { businessId: business.id, livemode: false }, now);
    }
  });
  const { messaging } = deps;
  if (messaging) {
    every(deps.holdSweepMs, 'message delivery sweep', async () => {
      const now = deps.now();
      // Which tenants have emails or SMS due again (a channel was down, or a process died mid-send).
      const tenants = await deps.prisma.message.findMany({ where: dueMessages(now, new Date(now.getTime() - 10_000)), distinct: ['businessId', 'livemode'], select: { businessId: true, livemode: true }, take: 100 });
      for (const tenant of tenants) {
        const business = await deps.prisma.business.findUnique({ where: { id: tenant.businessId }, select: { name: true } });
        const origin = { ...tenant, requestId: null, idempotencyKey: null };
        await deliverDueMessages(deps.tenantDb(tenant), origin, tenant.livemode ? messaging.live : messaging.test, now, business?.name ?? 'Your rental company');
      }
    });
  }
  every(deps.holdSweepMs, 'money sweep', () => sweepLostProcessorCalls(deps));
  every(deps.idempotencySweepMs, 'idempotency sweep', () => sweepIdempotencyRecords(deps.prisma, deps.now()));
  every(deps.idempotencySweepMs, 'oauth sweep', () => sweepExpiredOAuthRows(deps.prisma, deps.now()));
  // Each pass goes on from where this process's last one stopped.
  const retentionCursor = newRetentionCursor();
  every(deps.retention?.sweepMs ?? 0, 'retention', () => sweepRetention(deps.prisma, deps.retention!, deps.now(), retentionCursor));

  return {
    stop() {
      stopped = true;
      timers.forEach(clearInterval);
    },
  };
}
