import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
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

/** The process's guarded dispatcher (keep-alive connections are shared across deliveries). */
export function guardedDispatcher(): Agent {
  shared ??= createGuardedDispatcher();
  return shared;
}

/**
 * `fetch` through the guarded dispatcher. undici's own fetch: the dispatcher of the undici
 * package must not be handed to Node's global fetch (another undici version).
 */
export async function guardedFetch(url: string, init: RequestInit, dispatcher: Agent = guardedDispatcher()): Promise<Response> {
  const res = await undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher });
  return res as unknown as Response;
}
