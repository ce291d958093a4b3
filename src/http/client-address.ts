import proxyaddr from 'proxy-addr';

/**
 * TRUST_PROXY: which peers may say who the client is in `X-Forwarded-For`, as Express's
 * `trust proxy` setting reads it (both through the `proxy-addr` library): none (unset, the
 * default: the connection's own address is the client's), a number of proxy hops in front of
 * the service, or a list of proxy addresses and CIDR ranges (and the names `loopback`,
 * `linklocal`, `uniquelocal`).
 */
export type TrustProxy = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'addresses'; addresses: string[] };

const TRUST_ALL = /^(true|\*|all)$/i;

/** Read TRUST_PROXY; throws a line naming what is wrong. */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false' || value === '0') return { kind: 'none' };
  if (/^\d+$/.test(value)) return { kind: 'hops', hops: Number(value) };
  // Trusting every peer lets any client choose its address: name the proxies, or count them.
  if (TRUST_ALL.test(value)) throw new Error(`TRUST_PROXY must name the proxies (addresses, CIDR ranges, loopback, linklocal, uniquelocal) or count them (a number of hops), not trust every peer; got '${raw}'`);
  const addresses = value.split(',').map((a) => a.trim()).filter(Boolean);
  try {
    proxyaddr.compile(addresses);
  } catch (err) {
    throw new Error(`TRUST_PROXY must be a number of proxy hops, or a comma-separated list of proxy addresses and CIDR ranges (or loopback, linklocal, uniquelocal): ${(err as Error).message}; got '${raw}'`);
  }
  return { kind: 'addresses', addresses };
}

/** Who sent a request: the client's address, and whether a trusted proxy told it (X-Forwarded-For was read). */
export interface ClientAddress {
  address: string | null;
  /** The connection's peer is a trusted proxy, so X-Forwarded-For was read (it may still name the peer itself). */
  throughTrustedProxy: boolean;
}

/**
 * How the client's address is found under `trust`: the connection's peer, unless it is a
 * trusted proxy; then X-Forwarded-For is read from the right, hop by hop, to the first address
 * that is not a trusted proxy. A header sent by an untrusted peer is ignored.
 */
export function clientAddressResolver(trust: TrustProxy): (remoteAddress: string | null, forwardedFor: string | null) => ClientAddress {
  if (trust.kind === 'none') return (remoteAddress) => ({ address: remoteAddress, throughTrustedProxy: false });
  const trusted = trust.kind === 'hops' ? (_address: string, hop: number) => hop < trust.hops : proxyaddr.compile(trust.addresses);
  return (remoteAddress, forwardedFor) => {
    if (remoteAddress === null) return { address: null, throughTrustedProxy: false };
    const request = { socket: { remoteAddress }, headers: forwardedFor === null ? {} : { 'x-forwarded-for': forwardedFor } } as unknown as Parameters<typeof proxyaddr>[0];
    return { address: proxyaddr(request, trusted), throughTrustedProxy: trusted(remoteAddress, 0) };
  };
}

/** A loopback address, IPv4, IPv6, or IPv4 mapped into IPv6. */
export function isLoopback(address: string | null): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
