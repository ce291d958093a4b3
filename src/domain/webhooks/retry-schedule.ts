/**
 * Delivery retries (the contract, "Events and webhooks"): after the first attempt, retries
 * after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts, then given up.
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * Delay before the attempt after `attemptsMade`, or null when none is left. In the sandbox,
 * `sandboxScale` (SANDBOX_RETRY_SCALE) multiplies the delays so tests can run the schedule.
 */
export function nextRetryDelay(attemptsMade: number, livemode: boolean, sandboxScale: number): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attemptsMade - 1];
  return livemode ? base : Math.round(base * sandboxScale);
}

/** A 2xx answer (204 included) is delivered; anything else, or no answer, is retried. */
export const isDelivered = (status: number | null) => status !== null && status >= 200 && status < 300;
