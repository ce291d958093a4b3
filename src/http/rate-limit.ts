import { Redis } from 'ioredis';
import { log } from '../log.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  /**
   * Count one request of the key in a fixed window of `windowMs` (one second by default: the
   * per-key limits); in-process windows answer at once, without a promise.
   */
  hit(keyId: string, limit: number, windowMs?: number): RateDecision | Promise<RateDecision>;
}

const WINDOW_MS = 1_000;
/** How long a request waits for Redis before it is counted in this process instead. */
const ANSWER_MS = 100;
/** Failed or unanswered commands in a row, on an open connection, before Redis counts as unavailable. */
const FAILURES_BEFORE_UNAVAILABLE = 3;

/** Fixed windows per key (one second unless asked otherwise), in this process (single-machine default). */
export function memoryRateLimiter(): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(keyId, limit, windowMs = WINDOW_MS) {
      const now = Date.now();
      const start = now - (now % windowMs);
      const key = windowMs === WINDOW_MS ? keyId : `${keyId}@${windowMs}`;
      let window = windows.get(key);
      if (!window || window.start !== start) {
        if (windows.size > 50_000) windows.clear();
        window = { start, count: 0 };
        windows.set(key, window);
      }
      window.count++;
      return decision(window.count, limit, start + windowMs - now);
    },
  };
}

/** The same windows shared by every API process through Redis. */
export function redisRateLimiter(redis: Redis): RateLimiter {
  return {
    async hit(keyId, limit, windowMs = WINDOW_MS) {
      const now = Date.now();
      const start = now - (now % windowMs);
      const key = windowMs === WINDOW_MS ? `ratelimit:${keyId}:${start}` : `ratelimit:${keyId}:${windowMs}:${start}`;
      const results = await redis.multi().incr(key).pexpire(key, windowMs * 2).exec();
      const [error, count] = results?.[0] ?? [new Error('transaction aborted'), null];
      if (error) throw error;
      return decision(Number(count), limit, start + windowMs - now);
    },
  };
}

/**
 * The limiter of the service. Without a URL, windows in this process. With one, windows
 * shared through Redis while it answers; a request Redis does not answer at once (not
 * connected, an error, no answer within ~100 ms) is counted in this process instead, so no
 * request waits on Redis or fails because of it. Redis going away and coming back is logged
 * once each (see `connectRedis`); the client reconnects by itself for as long as it runs.
 */
export function createRateLimiter(redisUrl: string | undefined, options: { log?: (line: string) => void } = {}): RateLimiter & { close(): Promise<void> } {
  const local = memoryRateLimiter();
  const link = redisUrl ? connectRedis(redisUrl, { feature: 'rate limits', log: options.log }) : null;
  if (!link) return { hit: local.hit, close: async () => {} };
  const shared = redisRateLimiter(link.client);
  return {
    async hit(keyId, limit, windowMs) {
      if (!link.usable()) return local.hit(keyId, limit, windowMs);
      try {
        const decided = await answerWithin(Promise.resolve(shared.hit(keyId, limit, windowMs)), ANSWER_MS);
        link.answered();
        return decided;
      } catch (err) {
        link.failed(err);
        return local.hit(keyId, limit, windowMs);
      }
    },
    async close() {
      link.close();
    },
  };
}

function decision(count: number, limit: number, msLeft: number): RateDecision {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)) };
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return { 'RateLimit-Limit': String(d.limit), 'RateLimit-Remaining': String(d.remaining), 'RateLimit-Reset': String(d.resetSeconds) };
}

// ------------------------------------------------------------------ Redis connections

type Log = (line: string) => void;
const warn: Log = (line) => log.warn(line);

/** What a Redis URL points at, for log lines: host:port (or a socket path), never a password. Null when it is no Redis URL. */
export function redisEndpoint(redisUrl: string): string | null {
  if (redisUrl.startsWith('/')) return redisUrl;
  try {
    const url = new URL(redisUrl);
    if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname) return null;
    return `${url.hostname}:${url.port || '6379'}`;
  } catch {
    return null;
  }
}

/** Whether a client of one Redis endpoint can be used now; reported by its owner. */
export interface RedisHealth {
  up(): void;
  down(reason: string): void;
}

/**
 * This process's view of each Redis endpoint, shared by every client to it (rate limits,
 * live events): one warning line when the first of them loses Redis, one line when all of
 * them have it back, and nothing in between, however many requests or reconnections.
 */
type MemberState = 'connecting' | 'up' | 'down';
const endpoints = new Map<string, { members: Map<object, MemberState>; features: Set<string>; warned: boolean }>();
const warnedInvalid = new Set<string>();

/** Whether this process's clients of the Redis at `redisUrl` all have it now (for health checks). */
export function redisStatus(redisUrl: string): 'ok' | 'unavailable' {
  const where = redisEndpoint(redisUrl);
  const members = where ? endpoints.get(where)?.members : undefined;
  return members?.size && [...members.values()].every((m) => m === 'up') ? 'ok' : 'unavailable';
}

function joinFeatures(features: Set<string>) {
  const list = [...features];
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : (list[0] ?? 'Redis users');
}

function endpointHealth(where: string, feature: string, log: Log): RedisHealth & { leave(): void } {
  let endpoint = endpoints.get(where);
  if (!endpoint) endpoints.set(where, (endpoint = { members: new Map(), features: new Set(), warned: false }));
  const state = endpoint;
  state.features.add(feature);
  const member = {};
  state.members.set(member, 'connecting');
  const anyDown = () => [...state.members.values()].includes('down');
  return {
    down(reason) {
      if (state.members.get(member) !== 'connecting' && state.members.get(member) !== 'up') return;
      state.members.set(member, 'down');
      if (state.warned) return;
      state.warned = true;
      log(`Redis ${where} unavailable (${reason}): ${joinFeatures(state.features)} work in this process only until it is back`);
    },
    up() {
      if (!state.members.has(member)) return;
      state.members.set(member, 'up');
      if (!state.warned || anyDown()) return;
      state.warned = false;
      log(`Redis ${where} is back: ${joinFeatures(state.features)} are shared again`);
    },
    leave() {
      state.members.delete(member);
      if (!anyDown()) state.warned = false; // shutting down: nothing to announce
    },
  };
}

/** A short reason for a log line: the first line of the message, no stack. */
export function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0].slice(0, 200) || 'error';
}

/**
 * `promise`, or a rejection when it has not settled within `ms` (its own later rejection is
 * ignored). The verdict waits for the I/O phase after the timer: when this process was busy
 * rather than Redis slow, an answer already received still counts.
 */
export function answerWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(new Error(`no answer within ${ms} ms`))), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

export interface RedisLink {
  client: Redis;
  /** Connected, and not given up on after failed commands: worth sending a command to. */
  usable(): boolean;
  /** A command was answered. */
  answered(): void;
  /** A command failed or was not answered in time; `FAILURES_BEFORE_UNAVAILABLE` in a row (or one, when `now`) make the link unusable until a check passes. */
  failed(err: unknown, now?: boolean): void;
  close(): void;
}

/**
 * An ioredis client that never queues or waits: commands fail at once while it is not
 * connected, connecting and commands are bounded in time, and it reconnects forever, at most
 * ~1.5 s apart. Losing the connection, failing to get one, or commands failing on an open one
 * make the link unusable, reported to the endpoint's health (one line per process). It is
 * usable again once connected and `check` (a PING, unless told) has passed; that check is
 * retried every second while it fails. Null, after one warning, when the URL is no Redis URL.
 */
export function connectRedis(
  redisUrl: string,
  options: { feature: string; log?: Log; commandTimeoutMs?: number; autoResubscribe?: boolean; check?: (client: Redis) => Promise<unknown> },
): RedisLink | null {
  const log = options.log ?? warn;
  const where = redisEndpoint(redisUrl);
  let client: Redis | null = null;
  if (where) {
    try {
      client = new Redis(redisUrl, {
        enableOfflineQueue: false,
        connectTimeout: 1_000,
        commandTimeout: options.commandTimeoutMs ?? 1_000,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        autoResubscribe: options.autoResubscribe ?? true,
        retryStrategy: (attempt) => Math.min(200 * attempt, 1_500),
      });
    } catch {
      client = null;
    }
  }
  if (!where || !client) {
    if (!warnedInvalid.has(redisUrl)) {
      warnedInvalid.add(redisUrl);
      log('REDIS_URL is not a Redis URL (redis://[:password@]host:port): running without Redis, everything in this process only');
    }
    return null;
  }
  const redis = client;
  const health = endpointHealth(where, options.feature, log);
  const check = options.check ?? ((c: Redis) => c.ping());
  let lastError: string | null = null;
  let failures = 0;
  /** Connected but not usable yet: the check after connecting, or repeated failures, pending a passing check. */
  let held = true;
  let checking = false;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;
  /** Counts connections, so that a check sent on a connection since lost decides nothing. */
  let epoch = 0;

  function runCheck() {
    if (checking || closed || redis.status !== 'ready') return;
    checking = true;
    const sentOn = epoch;
    answerWithin(check(redis), 1_000).then(
      () => {
        if (sentOn !== epoch || closed) return;
        checking = false;
        held = false;
        failures = 0;
        stopRetrying();
        health.up();
      },
      (err) => {
        if (sentOn !== epoch || closed) return;
        checking = false;
        health.down(reasonOf(err));
        retry ??= setInterval(runCheck, 1_000);
        retry.unref();
      },
    );
  }
  function stopRetrying() {
    if (retry) clearInterval(retry);
    retry = null;
  }

  // A listener, so that ioredis does not print each failed attempt with its stack.
  redis.on('error', (err) => {
    lastError = reasonOf(err);
    if (redis.status !== 'ready') health.down(lastError);
  });
  redis.on('close', () => {
    epoch++;
    checking = false;
    held = true;
    stopRetrying();
    health.down(lastError ?? 'connection closed');
  });
  redis.on('ready', () => {
    lastError = null;
    if (options.check) runCheck();
    else {
      held = false;
      failures = 0;
      health.up();
    }
  });
  return {
    client: redis,
    usable: () => !held && redis.status === 'ready',
    answered() {
      failures = 0;
    },
    failed(err, now = false) {
      if (held || redis.status !== 'ready') return; // the connection's own events tell
      if (!now && ++failures < FAILURES_BEFORE_UNAVAILABLE) return;
      held = true;
      health.down(reasonOf(err));
      retry ??= setInterval(runCheck, 1_000);
      retry.unref();
    },
    close() {
      closed = true;
      stopRetrying();
      health.leave();
      redis.disconnect();
    },
  };
}
