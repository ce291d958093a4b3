import type { Redis } from 'ioredis';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  hit(keyId: string, limit: number): Promise<RateDecision>;
}

const WINDOW_MS = 1_000;

/** One-second fixed windows per API key, in this process (single-machine default). */
export function memoryRateLimiter(): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async hit(keyId, limit) {
      const now = Date.now();
      const start = now - (now % WINDOW_MS);
      let window = windows.get(keyId);
      if (!window || window.start !== start) {
        if (windows.size > 50_000) windows.clear();
        window = { start, count: 0 };
        windows.set(keyId, window);
      }
      window.count++;
      return decision(window.count, limit, start + WINDOW_MS - now);
    },
  };
}

/** The same windows shared by every API process through Redis. */
export function redisRateLimiter(redis: Redis): RateLimiter {
  return {
    async hit(keyId, limit) {
      const now = Date.now();
      const start = now - (now % WINDOW_MS);
      const key = `ratelimit:${keyId}:${start}`;
      const [[, count]] = (await redis.multi().incr(key).pexpire(key, WINDOW_MS * 2).exec()) as [[null, number], [null, number]];
      return decision(count, limit, start + WINDOW_MS - now);
    },
  };
}

function decision(count: number, limit: number, msLeft: number): RateDecision {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)) };
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return { 'RateLimit-Limit': String(d.limit), 'RateLimit-Remaining': String(d.remaining), 'RateLimit-Reset': String(d.resetSeconds) };
}
