import { z } from 'zod';
import { expireHolds } from '../bookings/booking-holds.ts';
import { markLateRentals } from '../bookings/booking-lateness.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { answersAs, defineOperation } from '../shared/operation.ts';
import { timestamp } from '../shared/validation.ts';

/** How far the sandbox's clock may be moved in one step, and ahead of real time in all. */
const MAX_ADVANCE_SECONDS = 366 * 86_400;
const MAX_OFFSET_SECONDS = 10 * MAX_ADVANCE_SECONDS;

/** The sandbox clock of a business, as `GET /v1/test/clock` answers it. */
export interface TestClock {
  now: Date;
  offsetSeconds: number;
  /** What the last advance made due (zero when only read). */
  expiredHolds: number;
  lateRentals: number;
  retriesDue: number;
}

/** Real time: the request's clock without the caller's sandbox offset. */
const realNow = (ctx: DomainContext) => new Date(ctx.now().getTime() - ctx.principal.clockOffsetMs);

async function offsetOf(ctx: DomainContext): Promise<number> {
  const business = await ctx.db.business.findUnique({ where: { id: ctx.tenant.businessId }, select: { sandboxClockOffsetSeconds: true } });
  return business?.sandboxClockOffsetSeconds ?? 0;
}

export const getTestClock = defineOperation({
  name: 'testClock',
  summary: 'Retrieve the sandbox clock',
  description: "Sandbox: the business's sandbox time (real time plus the offset that POST /v1/test/clock/advance built up; POST /v1/test/reset sets it back to real time).",
  access: { permission: 'business:read', sandbox: true },
  args: z.object({}),
  errors: [],
  async run(ctx): Promise<TestClock> {
    const offsetSeconds = await offsetOf(ctx);
    return { now: new Date(realNow(ctx).getTime() + offsetSeconds * 1000), offsetSeconds, expiredHolds: 0, lateRentals: 0, retriesDue: 0 };
  },
});

export const advanceTestClock = defineOperation({
  name: 'testAdvanceClock',
  summary: 'Advance the sandbox clock',
  description:
    "Sandbox: moves the business's sandbox time forward by `seconds`, or to `to`. What falls due by then happens at once, through the same steps as in production: unpaid holds expire (booking.canceled), rentals out past end_at and the grace go late (rental.late), and scheduled webhook retries are due now. Test keys see the new time within 5 seconds in other processes, at once in this one.",
  access: { permission: 'business:write', sandbox: true },
  args: z.object({
    input: z
      .object({
        seconds: z.number().int().min(1).max(MAX_ADVANCE_SECONDS).nullish().meta({ description: 'How far to move the clock.' }),
        to: timestamp('The sandbox time to move to (later than now).').nullish(),
      })
      .meta({ id: 'AdvanceClockInput' }),
  }),
  errors: [],
  example: { input: { seconds: 3600 } },
  // The clock as the first run moved it (not moved again).
  replay: answersAs(getTestClock),
  async run(ctx, args): Promise<TestClock> {
    const { seconds, to } = args.input;
    if ((seconds == null) === (to == null)) throw CommonErrors.parameterInvalid(seconds == null ? 'seconds' : 'to', 'Give either seconds or to, not both.');
    const real = realNow(ctx);
    const before = await offsetOf(ctx);
    const current = new Date(real.getTime() + before * 1000);
    const step = seconds ?? Math.ceil((to!.getTime() - current.getTime()) / 1000);
    const param = seconds == null ? 'to' : 'seconds';
    if (step < 1 || step > MAX_ADVANCE_SECONDS) {
      throw CommonErrors.parameterInvalid('to', `Invalid to: it must be later than the sandbox's now (${current.toISOString()}) and at most ${MAX_ADVANCE_SECONDS} seconds ahead.`);
    }
    // The bound is part of the update, so concurrent advances cannot together pass it.
    const { count } = await ctx.db.business.updateMany({
      where: { id: ctx.tenant.businessId, sandboxClockOffsetSeconds: { lte: MAX_OFFSET_SECONDS - step } },
      data: { sandboxClockOffsetSeconds: { increment: step } },
    });
    if (count !== 1) {
      throw CommonErrors.parameterInvalid(param, `Invalid ${param}: the sandbox clock may run at most ${MAX_OFFSET_SECONDS} seconds ahead of real time (it is ${before} ahead); POST /v1/test/reset starts again.`);
    }
    ctx.onClockChanged();
    const offsetSeconds = await offsetOf(ctx);
    const now = new Date(real.getTime() + offsetSeconds * 1000);
    const expiredHolds = await expireHolds(ctx.db, now, {}, 1000);
    const lateRentals = await markLateRentals(ctx.db, ctx.tenant, now, 1000);
    // Retries are scheduled in real time: bring each forward by the step (not before now).
    const waiting = await ctx.db.webhookMessage.findMany({ where: { state: 'pending', nextAttemptAt: { gt: real } }, select: { id: true, nextAttemptAt: true }, take: 1000 });
    let retriesDue = 0;
    for (const message of waiting) {
      const due = new Date(Math.max(real.getTime(), message.nextAttemptAt.getTime() - step * 1000));
      await ctx.db.webhookMessage.updateMany({ where: { id: message.id, state: 'pending', nextAttemptAt: message.nextAttemptAt }, data: { nextAttemptAt: due } });
      if (due.getTime() <= real.getTime()) retriesDue++;
    }
    return { now, offsetSeconds, expiredHolds, lateRentals, retriesDue };
  },
});
