import type { DayRate } from './pricing.ts';

/** The day rates of a stored price snapshot (JSON), ignoring anything malformed. */
export function storedDayRates(stored: unknown): DayRate[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter((d): d is DayRate => typeof d === 'object' && d !== null && typeof d.date === 'string' && typeof d.rule === 'string' && Number.isInteger(d.rate_cents));
}
