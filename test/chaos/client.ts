// The chaos test's client: REST calls to whichever API process the load balancer (here, a
// seeded draw) picks, retried as an SDK retries them, with the same Idempotency-Key: after a
// network error or a timeout, after a 503 (waiting its Retry-After), after any other 5xx (the
// contract releases the key on a 5xx), and after 409 idempotency_key_in_use (the first try
// still holds the key). Every attempt is recorded, for the invariants and the report.
import type { ServiceProcess } from './infra.ts';
import type { Rng } from './rng.ts';

/** An answer slower than this is a hang (the process is alive and did not answer). */
export const REQUEST_TIMEOUT_MS = 15_000;

export interface Attempt {
  target: string;
  startedAt: number;
  ms: number;
  /** The HTTP status; null when no answer came (a network error or our timeout). */
  status: number | null;
  failure?: 'network' | 'timeout';
  /** The envelope's error code, or the network error's code. */
  code?: string;
  /** The Retry-After header of a 503 (null when it was missing). */
  retryAfter?: string | null;
  /** A non-2xx answer in the contract's error envelope ({"error": {"type", "code", "message"}}). */
  envelope?: boolean;
  replayed?: boolean;
  /** The Request-Id of a 5xx, to find its log lines. */
  requestId?: string;
  /** The target was killed while the attempt waited (its network error is the expected one). */
  targetDied: boolean;
}

export interface Op {
  id: number;
  story: string;
  /** What the call does, for the report (create_booking, pay, cancel...). */
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  key: string | null;
  attempts: Attempt[];
  /** The last answer (null: none came). */
  final: { status: number; body: any; replayed: boolean } | null;
  /** The client got an answer to act on; false when it gave up at its deadline, still retrying. */
  settled: boolean;
  /** Answers other than a 2xx that are this call's normal outcome, effect included (a simulated decline: 402). */
  normal?: number[];
  startedAt: number;
  endedAt: number;
  /** What a 2xx answer says now exists, for the durability check (set by the story). */
  effect?: Effect;
}

/** An object a 2xx answer vouched for, in the state it named. */
export interface Effect {
  object: 'booking' | 'payment' | 'deposit' | 'charge' | 'vehicle';
  /** The object's id (for payment and deposit: their booking's id). */
  id: string;
  state: string | null;
}

export interface ClientOptions {
  apis: ServiceProcess[];
  key: string;
  /** How long an operation keeps retrying before the client gives up on it. */
  opDeadlineMs: number;
  /** Every operation, in the order they started (the run's ledger). */
  ops: Op[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ChaosClient {
  private nextId = 1;
  constructor(private readonly options: ClientOptions) {}

  get ops() {
    return this.options.ops;
  }

  /** One operation, retried until it has an answer to act on (or its deadline passed). */
  async call(rng: Rng, story: string, name: string, method: 'GET' | 'POST', path: string, body?: unknown, key: string | null = null, normal?: number[]): Promise<Op> {
    const op: Op = { id: this.nextId++, story, name, method, path, body, key, normal, attempts: [], final: null, settled: false, startedAt: Date.now(), endedAt: 0 };
    this.options.ops.push(op);
    const deadline = op.startedAt + this.options.opDeadlineMs;
    for (let n = 0; Date.now() < deadline; n++) {
      const target = rng.pick(this.options.apis);
      const attempt = await this.attempt(target, op);
      op.attempts.push(attempt);
      const backoff = Math.min(2_000, 100 * 2 ** Math.min(n, 5)) * rng.between(0.5, 1);
      if (attempt.status === null) {
        await sleep(backoff);
        continue;
      }
      if (attempt.status === 503 || attempt.status === 429) {
        const after = Number(attempt.retryAfter);
        await sleep(Number.isFinite(after) && after > 0 ? Math.min(after, 5) * 1000 * rng.between(0.5, 1) : backoff);
        continue;
      }
      if (attempt.status >= 500) {
        await sleep(backoff);
        continue;
      }
      if (attempt.status === 409 && attempt.code === 'idempotency_key_in_use') {
        await sleep(Math.max(backoff, 300));
        continue;
      }
      op.settled = true;
      break;
    }
    op.endedAt = Date.now();
    return op;
  }

  private async attempt(target: ServiceProcess, op: Op): Promise<Attempt> {
    const generation = target.generation;
    const startedAt = Date.now();
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.key}` };
    if (op.body !== undefined) headers['content-type'] = 'application/json';
    if (op.key) headers['idempotency-key'] = op.key;
    const died = () => target.generation !== generation || target.downSince !== null;
    try {
      const res = await fetch(target.baseUrl + op.path, {
        method: op.method,
        headers,
        body: op.body === undefined ? undefined : JSON.stringify(op.body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      let parsed: any = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text, and not the envelope
      }
      const ms = Date.now() - startedAt;
      const replayed = res.headers.get('idempotent-replayed') === 'true';
      const ok = res.status < 300;
      const envelope = !ok && typeof parsed?.error?.code === 'string' && typeof parsed?.error?.type === 'string' && typeof parsed?.error?.message === 'string';
      const attempt: Attempt = { target: target.name, startedAt, ms, status: res.status, replayed, targetDied: died(), envelope: ok ? undefined : envelope, code: envelope ? parsed.error.code : undefined };
      if (res.status === 503 || res.status === 429) attempt.retryAfter = res.headers.get('retry-after');
      if (res.status >= 500) attempt.requestId = res.headers.get('request-id') ?? undefined;
      op.final = { status: res.status, body: parsed, replayed };
      return attempt;
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      const cause = (err as { cause?: { code?: string } }).cause;
      return { target: target.name, startedAt, ms: Date.now() - startedAt, status: null, failure: timedOut ? 'timeout' : 'network', code: timedOut ? 'timeout' : (cause?.code ?? (err as Error).message), targetDied: died() };
    }
  }
}
