import { describe, expect, it } from 'vitest';
import { isDelivered, MAX_ATTEMPTS, nextRetryDelay } from './retry-schedule.ts';

describe('webhook retry schedule', () => {
  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up after 8 attempts', () => {
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => nextRetryDelay(i + 1, true, 1));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, null]);
  });

  it('compresses the schedule in the sandbox only', () => {
    expect(nextRetryDelay(1, false, 0.001)).toBe(5);
    expect(nextRetryDelay(1, true, 0.001)).toBe(5_000);
  });

  it('counts any 2xx as delivered, and no answer as failed', () => {
    expect([200, 204, 299].map(isDelivered)).toEqual([true, true, true]);
    expect([null, 301, 404, 500].map(isDelivered)).toEqual([false, false, false, false]);
  });
});
