import { z } from 'zod';
import type { DomainContext } from '../shared/context.ts';
import { validationError } from '../shared/common.errors.ts';
import { timestamp } from '../shared/validation.ts';

/** The fields of a rental period; `checkRentalPeriod` relates them. */
export const rentalPeriodFields = {
  startAt: timestamp('Start of the rental, with a UTC offset.'),
  endAt: timestamp('End of the rental, after start_at; at most 366 days later.'),
};

/** A rental period: start before end, at most a year (validated here, once). */
export function checkRentalPeriod(p: { startAt: Date; endAt: Date }, ctx: z.RefinementCtx, prefix: string[] = []) {
  // zod runs an object's refinement even when a field failed its own checks (then it is no Date).
  if (!(p.startAt instanceof Date) || !(p.endAt instanceof Date)) return;
  if (p.endAt <= p.startAt) ctx.addIssue({ code: 'custom', path: [...prefix, 'endAt'], message: 'must be after start_at' });
  else if (p.endAt.getTime() - p.startAt.getTime() > 366 * 86_400_000) ctx.addIssue({ code: 'custom', path: [...prefix, 'endAt'], message: 'a rental lasts at most 366 days' });
}

export function assertNotInPast(ctx: DomainContext, startAt: Date): void {
  // A few minutes of slack for clock skew between the integrator and us.
  if (startAt.getTime() < ctx.now().getTime() - 5 * 60_000) throw validationError('start_at', 'Invalid start_at: must not be in the past.');
}
