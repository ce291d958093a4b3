import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher } from 'undici';
import { isIpLiteral, isLocalhostName, refusedAddress, refusedResolution } from '../domain/webhooks/url-policy.ts';

/**
 * Delivery-time SSRF guard: an undici dispatcher that connects only to public internet
 * addresses. A URL checked when its endpoint was created may resolve elsewhere later (DNS
 * rebinding, a record changed on purpose), so the address is checked again here, the one the
 * socket is about to connect to: names through `connect.lookup` (refused if ANY address they
 * resolve to is not public), literal addresses and `localhost` in the connector itself (net
 * never calls lookup for a literal IP).
 */
export class WebhookTargetRefused extends Error {
  readonly code = 'ERR_WEBHOOK_TARGET_REFUSED';

  constructor(reason: string) {
    super(`webhook target refused: ${reason}; deliveries from this environment go only to public internet addresses`);
    this.name = 'WebhookTargetRefused';
  }
}

/** Every address of a name (injectable, to simulate a DNS answer in tests). */
export type AddressResolver = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

const systemAddresses: AddressResolver = (hostname, options) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { ...options, all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** A `lookup` for net/tls.connect that fails when any resolved address is not public. */
export function guardedLookup(resolve: AddressResolver = systemAddresses): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, options).then(
      (addresses) => {
        const reason = isLocalhostName(hostname) ? `${hostname} is a loopback host name` : refusedResolution(hostname, addresses.map((a) => a.address));
        if (reason) return callback(new WebhookTargetRefused(reason), options.all ? [] : '');
        if (addresses.length === 0) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), options.all ? [] : '');
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, options.all ? [] : ''),
    );
  };
}

/** An undici Agent whose connections reach public internet addresses only. */
export function createGuardedDispatcher(options: { resolve?: AddressResolver } = {}): Agent {
  const connector = buildConnector({ lookup: guardedLookup(options.resolve) });
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname;
    const reason = isIpLiteral(host) ? refusedAddress(host) : isLocalhostName(host) ? `${host} is a loopback host name` : null;
    if (reason) {
      const refused = new WebhookTargetRefused(reason);
      queueMicrotask(() => callback(refused, null));
      return;
    }
    connector(opts, callback);
  };
  return new Agent({ connect });
}

let shared: Agent | null = null;
let unguarded: Agent | null = null;

/**
 * The process's guarded dispatcher. Its connections are kept alive and reused across
 * deliveries: each one was opened through the connector above, to an address checked as it
 * connected, and a reused connection stays with that address (a later DNS answer only
 * matters to the next connection, which is checked again).
 */
export function guardedDispatcher(): Agent {
  shared ??= createGuardedDispatcher();
  return shared;
}

/** Where private targets are allowed (see url-policy.ts): a plain keep-alive Agent. */
export function unguardedDispatcher(): Agent {
  unguarded ??= new Agent();
  return unguarded;
}

export interface PostOutcome {
  status: number | null;
  error: Error | null;
  /** No answer (status line and headers) within the timeout. */
  timedOut: boolean;
}

/** Parsed target URLs (the same few endpoints are posted to again and again). */
const targets = new Map<string, { origin: string; path: string }>();

function targetOf(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size >= 10_000) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/**
 * POST `body` to `url` through `dispatcher` (its connections, guarded or not, are kept alive
 * and reused) and settle on the answer's status as soon as its head arrives; the body is
 * read and dropped so that the connection can serve the next delivery. Redirects are not
 * followed (a 3xx is an answer like any other). No answer within `timeoutMs`: the request is
 * aborted (or, not started yet, never sent) and the outcome says so. Never throws.
 * (undici's dispatch API: the least a request costs, no response stream nor abort signal.)
 */
export function postThrough(dispatcher: Dispatcher, url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostOutcome> {
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    let timedOut = false;
    let abort: ((reason: Error) => void) | null = null;
    const settle = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      const reason = Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' });
      abort?.(reason);
      settle({ status: null, error: reason, timedOut: true });
    }, timeoutMs);
    try {
      const { origin, path } = targetOf(url);
      dispatcher.dispatch(
        { origin, path, method: 'POST', headers, body },
        {
          onConnect(abortRequest: (reason: Error) => void) {
            abort = abortRequest;
            if (timedOut) abortRequest(new Error('timed out before it was sent'));
          },
          onHeaders(statusCode: number) {
            settle({ status: statusCode, error: null, timedOut: false });
            return true;
          },
          onData() {
            return true;
          },
          onComplete() {},
          onError(err: Error) {
            settle({ status: null, error: err, timedOut });
          },
        } as unknown as Dispatcher.DispatchHandler,
      );
    } catch (err) {
      settle({ status: null, error: err as Error, timedOut: false });
    }
  });
}

/**
 * `fetch` through the guarded dispatcher. undici's own fetch: the dispatcher of the undici
 * package must not be handed to Node's global fetch (another undici version).
 */
export async function guardedFetch(url: string, init: RequestInit, dispatcher: Agent = guardedDispatcher()): Promise<Response> {
  const res = await undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher });
  return res as unknown as Response;
}
